"""The requests any task sends to a server: forwarded to the owner's current session (`Calls`, `Subscriptions`).

`ServerConnection` takes these methods; the owner task alone opens and closes the session they go through.
`ServerRequests` names the part a chat turn sends (a resource read, a tool call, a prompt, a completion),
which a connection answers and a turn's recording view (`chat/traced_host.py`) answers too.
"""

from __future__ import annotations

from typing import Any, Protocol

from mcp.shared.dispatcher import ProgressFnT
from mcp_types import (
    CallToolResult,
    CompleteResult,
    GetPromptResult,
    PromptReference,
    ReadResourceResult,
    ResourceTemplateReference,
)

from desktop_app.core.connection.calls import Calls
from desktop_app.core.connection.server_claim import ServerClaim
from desktop_app.core.connection.server_log import ServerLog
from desktop_app.core.connection.subscriptions import Subscriptions


class ServerRequests(Protocol):
    """What a turn sends one server."""

    async def read_resource(self, uri: str) -> ReadResourceResult: ...

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        progress: ProgressFnT | None = None,
        *,
        call_id: str | None = None,
        chat: str | None = None,
    ) -> CallToolResult: ...

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> GetPromptResult: ...

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> CompleteResult: ...


class Requests:
    """Reading, calling, prompting, completing and subscribing, from any task."""

    _calls: Calls
    _subscriptions: Subscriptions
    _log: ServerLog

    @property
    def claim(self) -> ServerClaim | None:
        """What the server last said it is (its results' serverInfo): shown as its claim, never trusted."""
        return self._calls.claims.latest

    async def read_resource(self, uri: str) -> ReadResourceResult:
        return await self._calls.read_resource(uri)

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        progress: ProgressFnT | None = None,
        *,
        call_id: str | None = None,
        chat: str | None = None,
    ) -> CallToolResult:
        """Call a tool; questions the server asks meanwhile are shown with the chat's call `call_id`, and a
        task it becomes belongs to conversation `chat` (by default the one the user is in)."""
        return await self._calls.call_tool(tool, arguments, progress, call_id, chat)

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> GetPromptResult:
        return await self._calls.get_prompt(prompt, arguments)

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> CompleteResult:
        return await self._calls.complete(ref, argument, value, context)

    async def subscribe(self, uri: str) -> None:
        """Ask for `resources/updated` on `uri`; counted, so several viewers may share one."""
        await self._subscriptions.add(uri)

    async def unsubscribe(self, uri: str) -> None:
        await self._subscriptions.remove(uri)

    def note_app(self, level: str, text: str) -> None:
        """A line about one of this server's MCP App views (what it sent, what it was refused)."""
        self._log.add("app", level, text)
