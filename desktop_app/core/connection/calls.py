"""Requests to one server from any task, sent through its ready session.

A failure is worded for what it means to the server: a sign-in it now needs, a timeout, or a
lost connection (which also tells the owner task, so it restarts the server at once). A tool
call that becomes a task is followed by the server's `TaskRunner`, without an overall timeout.
A result without `resultType` on 2026-07-28 is read as complete, as the specification says
(`extensions/result_checks.py`: the SDK refuses it). Every result passes `request`, where what it says
the server is (`server_claim`) is read.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp import Client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    CompleteResult,
    GetPromptResult,
    PromptReference,
    ReadResourceResult,
    ResourceTemplateReference,
)

from desktop_app.core.asks.server_asks import ServerAsks
from desktop_app.core.auth.server_auth import ServerAuth
from desktop_app.core.connection.server_claim import ServerClaims
from desktop_app.core.extensions import result_checks
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import (
    ServerRequestTimeout,
    ServerUnavailableError,
    describe_error,
    is_connection_loss,
)
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.tasks.runner import TaskRunner
from desktop_app.core.watched_streams import CLOSED_REASON

T = TypeVar("T")

result_checks.install()  # before any request of any server: the SDK client's check is process-wide


class Calls:
    """The requests the app makes of one server: reads, tool calls, prompts, completions."""

    def __init__(
        self,
        *,
        config: Callable[[], ServerConfig],
        status: Callable[[], ServerStatus],
        client: Callable[[], Client | None],
        auth: ServerAuth,
        asks: ServerAsks,
        mark_dead: Callable[[str], None],
        tasks: TaskBoard,
        note: Callable[[str, str], None] = lambda _level, _text: None,
    ) -> None:
        """`tasks` is the host's board: the tool calls that become tasks are listed and followed there.
        `note` writes the server's log (a changed or malformed claim of what the server is)."""
        self._config = config
        self._status = status
        self._client = client
        self._auth = auth
        self._asks = asks
        self._mark_dead = mark_dead
        self.claims = ServerClaims(note)
        """What the server says it is, read from every result that passes `request` (and the session's)."""
        self._tasks = TaskRunner(tasks, config=config, client=client, request=self.request, asks=asks)

    async def read_resource(self, uri: str) -> ReadResourceResult:
        return await self.request(f"resources/read {uri}", lambda c: c.read_resource(uri))

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        progress: ProgressFnT | None,
        call_id: str | None,
        chat: str | None = None,
    ) -> CallToolResult:
        """Call a tool; questions the server asks meanwhile are shown with the chat's call `call_id`, and a
        task it becomes belongs to conversation `chat` (by default the one the user is in)."""

        def send(client: Client) -> Awaitable[CallToolResult]:
            # The timeout is kept by `asks.call_tool`: it pauses while the server waits on the user.
            return client.call_tool(tool, arguments, read_timeout_seconds=math.inf, progress_callback=progress)

        def plain() -> Awaitable[CallToolResult]:
            return self._asks.call_tool(
                tool, call_id, self._config().timeout, lambda: self.request(f"tools/call {tool}", send)
            )

        return await self._tasks.call_tool(tool, arguments, progress, call_id, plain, chat)

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> GetPromptResult:
        return await self.request(f"prompts/get {prompt}", lambda c: c.get_prompt(prompt, arguments))

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> CompleteResult:
        return await self.request(
            "completion/complete",
            lambda c: c.complete(ref, {"name": argument, "value": value}, context_arguments=context),
        )

    async def request(self, what: str, send: Callable[[Client], Awaitable[T]]) -> T:
        """Send one request (`what` names it in errors) through the ready session."""
        config, status, client = self._config(), self._status(), self._client()
        if client is None or status.state not in (ServerState.READY, ServerState.SIGNING_IN):
            raise self._auth.unavailable() or ServerUnavailableError(f"Server '{config.name}' is {status.summary}")
        generation = self._auth.generation
        try:
            result = await send(client)
        except MCPError as exc:
            if (refused := self._auth.refusal(generation)) is not None:
                raise refused from exc
            if exc.code == REQUEST_TIMEOUT:
                raise ServerRequestTimeout(
                    f"Server '{config.name}' did not answer {what} within {config.timeout:g} s"
                ) from exc
            if exc.code != CONNECTION_CLOSED:
                raise
            self._mark_dead(CLOSED_REASON)
            raise ServerUnavailableError(f"Server '{config.name}' closed the connection during {what}") from exc
        except Exception as exc:
            if (refused := self._auth.refusal(generation)) is not None:
                raise refused from exc
            if not is_connection_loss(exc):
                raise
            self._mark_dead(describe_error(exc))
            raise ServerUnavailableError(
                f"Server '{config.name}' connection lost during {what}: {describe_error(exc)}"
            ) from exc
        self.claims.seen(result)
        return result
