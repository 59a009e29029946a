"""The turn's view of the host, with every MCP request it makes and every question asked recorded.

A turn reaches servers three ways: reading a resource, getting a prompt, calling a tool. The turn
hands the functions that do so (`read_for_model`, `invoke_prompt`, its own tool calls) this view
instead of the host: the same host and connections, each of those requests timed and told to the
trace with its params and its result or error. What servers ask the user meanwhile (a form, a
link, a sign-in) goes through the host's question gate, whose asker is wrapped once so listening
turns hear each question and its answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from desktop_app.core.asks.question import Asker, Question, QuestionGate

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT
    from mcp_types import CallToolResult, GetPromptResult, ReadResourceResult

    from desktop_app.core.connection import ServerConnection
    from desktop_app.core.host import ServerHost

R = TypeVar("R")
T = TypeVar("T")

McpLog = Callable[[str, str, dict[str, Any], float, Any, "BaseException | None", "str | None"], None]
"""(server, method, params, started, result, error, call_id): one request of the turn."""
QuestionLog = Callable[[Question[Any], Any, float, bool], None]
"""(question, answer, started, answered): one question put to the user."""


class TracedConnection:
    """A server connection whose reads, prompts and tool calls are recorded; the rest passes through."""

    def __init__(self, inner: ServerConnection, server: str, record: McpLog) -> None:
        self._inner = inner
        self._server = server
        self._record = record

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

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
    """The host as a turn sees it: `connection()` gives recorded connections; the rest passes through."""

    def __init__(self, host: ServerHost, record: McpLog) -> None:
        self._host = host
        self._record = record

    def __getattr__(self, name: str) -> Any:
        return getattr(self._host, name)

    def connection(self, name: str) -> ServerConnection:
        return cast("ServerConnection", TracedConnection(self._host.connection(name), name, self._record))

    def as_host(self) -> ServerHost:
        """This view where a `ServerHost` is expected (it answers everything a turn asks of one)."""
        return cast("ServerHost", self)


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
