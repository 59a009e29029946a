"""The one shape of every question put to the user on someone else's behalf.

A server (an elicitation, a sampling request), the sign-in flow or an app view needs an answer
only the user can give. The core builds a frozen `Question`, awaits it through an `Asker`, and
gets the question's own reply type back. The window answers with a non-modal card, `mcp-desk run`
with flags or a terminal prompt, tests with scripted answers.

Nobody answering is an answer too: every question has a `fallback()` reply, used when it times
out or when the asker has no way to ask (a headless run), so whoever asked always hears back.
Cancellation is not an answer: it propagates as `asyncio.CancelledError` and every asker must
withdraw its question (remove the card, stop the prompt) when that happens.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

from desktop_app.core.asks.budget import QuestionBudget

log = logging.getLogger(__name__)

R = TypeVar("R")

MAX_WAITING_PER_SERVER: Final = 3
"""Questions a server may have waiting behind its open one; more are refused as a flood."""


@dataclass(frozen=True, kw_only=True)
class Question(Generic[R]):
    """Something only the user can answer. Subclasses add the facts and define `fallback()`."""

    server: str
    """Who asks: the server's configured name (the app's own questions name the server they are about)."""
    call_id: str | None = None
    """The tool call during which the question arose, if any: the window shows the card under it."""
    timeout: float | None = None
    """Seconds to wait for the user; None waits until the question is cancelled."""

    def fallback(self) -> R:
        """The reply when the user gives none (timed out, or no way to ask): always the safe refusal."""
        raise NotImplementedError


class Asker(Protocol):
    """Puts a question to the user and returns the reply (the window, the command line, a test)."""

    async def ask(self, question: Question[R]) -> R: ...


class TooManyQuestions(RuntimeError):
    """A server asked again while its earlier questions were still waiting; it is told so, not queued.

    An asker that cannot answer a question in full answers with the question's own refusal (a
    form is cancelled, a sampling request denied) and says why; only a flood is an error."""


class QuestionsStopped(TooManyQuestions):
    """The source (a tool call, a task, a server) used up its questions (`budget`); it is told so, not asked.

    `first` marks the refusal that stopped it: the one said out loud (a line, a card); the rest are
    refused quietly."""

    def __init__(self, reason: str, *, first: bool) -> None:
        super().__init__(f"too many questions ({reason}); the user was not asked")
        self.first = first


@dataclass(frozen=True, kw_only=True)
class AskingStopped(Question[None]):
    """Not a question: the one notice that a source was stopped from asking (instead of a card per question)."""

    reason: str

    def fallback(self) -> None:
        return None


async def ask_user(asker: Asker, question: Question[R]) -> R:
    """Ask with the question's deadline: its `fallback()` when the user does not answer in time."""
    if question.timeout is None:
        return await asker.ask(question)
    try:
        async with asyncio.timeout(question.timeout):
            return await asker.ask(question)
    except TimeoutError:
        log.info("%s from %s: no answer within %g s", type(question).__name__, question.server, question.timeout)
        return question.fallback()


class FallbackAsker:
    """Answers every question with its fallback: where nobody can be asked (a headless default)."""

    async def ask(self, question: Question[R]) -> R:
        return question.fallback()


class ScriptedAsker:
    """Answers with `answer(question)` (a reply or an awaitable of one); records every question asked.

    With no `answer`, each question gets its fallback. Tests script the user this way (the command
    line's flags live in `desktop_app.cli.asks`).
    """

    def __init__(self, answer: Callable[[Question[Any]], Any] | None = None) -> None:
        self._answer = answer
        self.asked: list[Question[Any]] = []

    async def ask(self, question: Question[R]) -> R:
        self.asked.append(question)
        if self._answer is None:
            return question.fallback()
        reply = self._answer(question)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply  # type: ignore[no-any-return]


class QuestionGate:
    """One open question per server, a few waiting behind it, a flood refused, and a budget per source.

    A server cannot bury the user in cards: its questions are shown one at a time, and once
    `max_waiting` are queued behind the open one, further questions raise `TooManyQuestions`
    at once (the caller turns that into an error for the server and a line in its log). One that
    asks again as soon as it is answered is held to its `budget` (per tool call or task, per
    server): past it, `QuestionsStopped`, and the user gets one `AskingStopped` notice instead.
    """

    def __init__(
        self, asker: Asker, *, max_waiting: int = MAX_WAITING_PER_SERVER, budget: QuestionBudget | None = None
    ) -> None:
        self.asker = asker
        self.budget = budget or QuestionBudget()
        self._max_waiting = max_waiting
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._waiting: dict[str, int] = defaultdict(int)
        self._notices: set[asyncio.Future[None]] = set()

    def waiting(self, server: str) -> int:
        """Questions from `server` open or queued right now."""
        return self._waiting[server]

    async def ask(self, question: Question[R]) -> R:
        server = question.server
        if self._waiting[server] > self._max_waiting:
            raise TooManyQuestions(
                f"too many questions ('{server}' already has {self._waiting[server]} questions waiting"
                " for the user); the user was not asked"
            )
        stop = self.budget.spend(server, question.call_id)
        if stop is not None:
            if stop.first:
                self._notify(AskingStopped(server=server, call_id=question.call_id, reason=stop.reason))
            raise QuestionsStopped(stop.reason, first=stop.first)
        self._waiting[server] += 1
        try:
            async with self._locks[server]:
                return await ask_user(self.asker, question)
        finally:
            self._waiting[server] -= 1

    def stopped(self, server: str, call_id: str | None) -> str | None:
        """Why `call_id`'s (or, without one, `server`'s) questions are refused now; None while they are not."""
        return self.budget.stopped(server, call_id)

    def _notify(self, notice: AskingStopped) -> None:
        """Show the notice without waiting for it: the refusal goes back to the server at once."""
        shown = asyncio.ensure_future(ask_user(self.asker, notice))
        self._notices.add(shown)
        shown.add_done_callback(self._shown)

    def _shown(self, shown: asyncio.Future[None]) -> None:
        self._notices.discard(shown)
        if not shown.cancelled() and shown.exception() is not None:
            log.warning("the notice that questions were stopped could not be shown: %s", shown.exception())
