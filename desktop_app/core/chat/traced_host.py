"""The turn's view of the host, with every MCP request it makes and every question asked recorded.

A turn reaches servers three ways: reading a resource, getting a prompt, calling a tool. The turn
hands the functions that do so (`read_for_model`, `invoke_prompt`, its own tool calls) this view
instead of the host (both are a `TurnHost`): the same host and connections, each request sent through
`requests(server)` timed and told to the trace with its params and its result or error. What servers
ask the user meanwhile (a form, a link, a sign-in) goes through the host's question gate, whose asker is
wrapped once so listening turns hear each question and its answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from desktop_app.core.asks.question import Asker, Question, QuestionGate

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT
    from mcp_types import (
        CallToolResult,
        CompleteResult,
        GetPromptResult,
        PromptReference,
        ReadResourceResult,
        ResourceTemplateReference,
    )

    from desktop_app.core.asks.service import AskService
    from desktop_app.core.auth.server_auth import SignInServices
    from desktop_app.core.catalog import Catalog
    from desktop_app.core.connection import ServerConnection
    from desktop_app.core.connection.requests import ServerRequests
    from desktop_app.core.expansion import SecretLookup
    from desktop_app.core.host import ServerHost
    from desktop_app.core.trust import ServerTrust

R = TypeVar("R")
T = TypeVar("T")

McpLog = Callable[[str, str, dict[str, Any], float, Any, "BaseException | None", "str | None"], None]
"""(server, method, params, started, result, error, call_id): one request of the turn."""
QuestionLog = Callable[[Question[Any], Any, float, bool], None]
"""(question, answer, started, answered): one question put to the user."""


class TracedRequests:
    """A server's requests, each read, prompt and tool call recorded (completions pass unrecorded)."""

    def __init__(self, inner: ServerRequests, server: str, record: McpLog) -> None:
        self._inner = inner
        self._server = server
        self._record = record

    async def read_resource(self, uri: str) -> ReadResourceResult:
        return await self._timed("resources/read", {"uri": uri}, None, lambda: self._inner.read_resource(uri))

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> GetPromptResult:
        params = {"name": prompt, "arguments": arguments}
        return await self._timed("prompts/get", params, None, lambda: self._inner.get_prompt(prompt, arguments))

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        progress: ProgressFnT | None = None,
        *,
        call_id: str | None = None,
        chat: str | None = None,
    ) -> CallToolResult:
        params = {"name": tool, "arguments": arguments}
        return await self._timed(
            "tools/call",
            params,
            call_id,
            lambda: self._inner.call_tool(tool, arguments, progress, call_id=call_id, chat=chat),
        )

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> CompleteResult:
        return await self._inner.complete(ref, argument, value, context)

    async def _timed(
        self, method: str, params: dict[str, Any], call_id: str | None, send: Callable[[], Awaitable[T]]
    ) -> T:
        started = time.monotonic()
        try:
            result = await send()
        except BaseException as exc:
            self._record(self._server, method, params, started, None, exc, call_id)
            raise
        self._record(self._server, method, params, started, result, None, call_id)
        return result


class TracedHost:
    """The host as a turn sees it: `requests()` gives recorded requests; everything else is the host's."""

    def __init__(self, host: ServerHost, record: McpLog) -> None:
        self._host = host
        self._record = record

    @property
    def catalog(self) -> Catalog:
        return self._host.catalog

    @property
    def questions(self) -> QuestionGate:
        return self._host.questions

    @property
    def asks(self) -> AskService:
        return self._host.asks

    @property
    def sign_in(self) -> SignInServices:
        return self._host.sign_in

    @property
    def secrets(self) -> SecretLookup | None:
        return self._host.secrets

    @property
    def connections(self) -> Mapping[str, ServerConnection]:
        return self._host.connections

    def connection(self, name: str) -> ServerConnection:
        return self._host.connection(name)

    def requests(self, server: str) -> ServerRequests:
        return TracedRequests(self._host.requests(server), server, self._record)

    def trust(self, server: str) -> ServerTrust:
        return self._host.trust(server)


class QuestionWatch:
    """The question gate's asker, wrapped: each question and its answer is told to the listeners."""

    def __init__(self, inner: Asker) -> None:
        self.inner = inner
        self.listeners: list[QuestionLog] = []

    async def ask(self, question: Question[R]) -> R:
        started = time.monotonic()
        try:
            answer = await self.inner.ask(question)
        except (asyncio.CancelledError, TimeoutError):
            self._tell(question, None, started, False)  # withdrawn, or its deadline passed
            raise
        self._tell(question, answer, started, True)
        return answer

    def _tell(self, question: Question[Any], answer: Any, started: float, answered: bool) -> None:
        for listener in list(self.listeners):
            listener(question, answer, started, answered)


def watch_questions(gate: QuestionGate) -> QuestionWatch:
    """The gate's watch, installed around its asker on first use (and again if the asker was replaced)."""
    if not isinstance(gate.asker, QuestionWatch):
        gate.asker = QuestionWatch(gate.asker)
    return gate.asker
