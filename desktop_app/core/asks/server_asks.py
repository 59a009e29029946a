"""Everything one server may ask, for one connection: the SDK's callbacks and the tool-call wrapper.

Setting a callback on `mcp.Client` declares the capability, so a connection built with these
options tells the server it may elicit (form and URL), sample (with tools) and list roots. The
same callbacks serve both protocol eras: on 2026-07-28 the SDK fulfils "input required" results
through them and retries the request itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitCompleteNotification, SamplingCapability, SamplingToolsCapability
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app.core.asks.attribution import CallScope, CallTracker, within_timeout
from desktop_app.core.asks.context import AskContext
from desktop_app.core.asks.elicitation import Elicitation
from desktop_app.core.asks.roots import Roots
from desktop_app.core.asks.sampling import Sampling
from desktop_app.core.asks.service import AskService
from desktop_app.core.events import Event
from desktop_app.core.server_errors import ServerRequestTimeout

T = TypeVar("T")


class ServerAsks:
    """The handlers for one server, and the tool calls its questions are attributed to."""

    def __init__(
        self,
        server: str,
        service: AskService,
        *,
        note: Callable[[str, str], None],
        alive: Callable[[], bool],
        publish: Callable[[Event], None],
        own_roots: Callable[[], tuple[str, ...] | None],
    ) -> None:
        self.calls = CallTracker(server)
        self.context = AskContext(server, service, self.calls, note, alive, publish)
        self.elicitation = Elicitation(self.context)
        self.sampling = Sampling(self.context)
        self.roots = Roots(self.context, own_roots)

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for `mcp.Client`: every callback, so every capability is declared, except
        sampling when the organisation's policy switches it off (a server is not told it may sample)."""
        options: dict[str, Any] = {"elicitation_callback": self.elicitation, "list_roots_callback": self.roots}
        if self.sampling.refused is None:
            options["sampling_callback"] = self.sampling
            options["sampling_capabilities"] = SamplingCapability(tools=SamplingToolsCapability())
        return options

    def on_notification(self, message: object) -> None:
        """Notifications that concern questions (a URL flow the server reports complete)."""
        if isinstance(message, ElicitCompleteNotification):
            self.elicitation.completed(message.params.elicitation_id)

    async def call_tool(self, tool: str, call_id: str | None, timeout: float, send: Callable[[], Awaitable[T]]) -> T:
        """Run a tool call so questions it raises are attributed to it, and its `timeout` counts only
        the server's time; a call that first needs a browser step ("URL elicitation required") asks
        the user and is retried once."""
        async with self.calls.track(call_id) as scope:
            try:
                return await self._timed(tool, scope, timeout, send)
            except MCPError as exc:
                if exc.code != URL_ELICITATION_REQUIRED or not await self.elicitation.required(exc):
                    raise
            self.context.note("info", "trying the tool call again after the browser step")
            return await self._timed(tool, scope, timeout, send)

    async def _timed(self, tool: str, scope: CallScope, timeout: float, send: Callable[[], Awaitable[T]]) -> T:
        try:
            return await within_timeout(scope, timeout, send())
        except TimeoutError:
            raise ServerRequestTimeout(
                f"Server '{self.context.server}' did not answer tools/call {tool} within {timeout:g} s"
            ) from None

    async def roots_changed(self, client: Client) -> None:
        """Tell a 2025-era server its roots changed (2026-07-28 has no such notification: it asks again)."""
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.send_roots_list_changed()
        self.context.note("info", f"roots changed: {', '.join(self.roots.uris()) or 'none'}")
