"""How many questions a source may put to the user: each tool call (a task is one), and each server.

The flood guard (`QuestionGate`) keeps a server to one open question and a few waiting, but a
source that asks again the moment it is answered never waits: a task that puts a new question on
every poll, or a server that asks form after form during one call, would show card after card for
as long as someone answers. So every question put to the user is counted against its tool call and
its server; past the allowance the source is stopped: its next questions are refused without
asking, the first refusal says why (one line, one card), and a task that was stopped is cancelled.

A call's allowance lasts for its life (a task followed again after a restart keeps its count); a
server's is a rolling window, so a server that asks now and then is never stopped.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

MAX_PER_CALL: Final = 16
"""Questions one tool call (or the task it became) may put to the user. An honest call asks once or
twice; the most a bounded exchange asks is a sampling tool loop at its limit (`MAX_TOOL_ROUNDS`, 8):
one consent and a review per round, about ten. Sixteen leaves room above that and stops a loop early."""
MAX_PER_SERVER: Final = 40
"""Questions one server may put to the user within `SERVER_WINDOW_S`, across all its calls: two or three
busy calls' worth, far above an honest server's rate, and a hard stop for one that asks in a loop."""
SERVER_WINDOW_S: Final = 600.0
CALLS_REMEMBERED: Final = 512
"""Calls whose count is kept (the oldest is forgotten first): a budget must not grow without end either."""


@dataclass(frozen=True)
class Stop:
    """Why a source may not ask now; `first` is True for the refusal that stopped it (the one to show)."""

    reason: str
    first: bool


class QuestionBudget:
    """Counts the questions put to the user per tool call and per server, and says when to stop."""

    def __init__(
        self,
        *,
        per_call: int = MAX_PER_CALL,
        per_server: int = MAX_PER_SERVER,
        window_s: float = SERVER_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._per_call = per_call
        self._per_server = per_server
        self._window_s = window_s
        self._clock = clock
        self._calls: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._stopped_calls: dict[tuple[str, str], str] = {}
        self._asked: dict[str, deque[float]] = {}
        self._stopped_servers: dict[str, str] = {}
        """Servers stopped now, with why: told once, until their window has room again."""

    def spend(self, server: str, call_id: str | None) -> Stop | None:
        """Count one question from `server` during `call_id`; a `Stop` instead when the source is spent."""
        key = None if call_id is None else (server, call_id)
        if key is not None and key in self._stopped_calls:
            return Stop(self._stopped_calls[key], first=False)
        recent = self._recent(server)
        if len(recent) >= self._per_server:
            reason = (
                f"'{server}' asked {len(recent)} questions within {self._window_s / 60:g} minutes;"
                " it is not asked more for now"
            )
            first = server not in self._stopped_servers
            self._stopped_servers[server] = reason
            if key is not None:
                self._stop_call(key, reason)
            return Stop(reason, first)
        self._stopped_servers.pop(server, None)
        if key is not None:
            count = self._calls.pop(key, 0)
            if count >= self._per_call:
                reason = f"'{server}' asked {count} questions during one tool call; it is not asked more for it"
                self._stop_call(key, reason)
                return Stop(reason, first=True)
            self._calls[key] = count + 1
            while len(self._calls) > CALLS_REMEMBERED:
                self._calls.popitem(last=False)
        recent.append(self._clock())
        return None

    def stopped(self, server: str, call_id: str | None) -> str | None:
        """Why questions of `call_id` (or, without one, of `server`) are refused now; None while they are not."""
        if call_id is not None:
            return self._stopped_calls.get((server, call_id))
        if len(self._recent(server)) >= self._per_server:
            return self._stopped_servers.get(server)
        return None

    def _recent(self, server: str) -> deque[float]:
        """When `server`'s questions within the window were asked (older ones forgotten)."""
        recent = self._asked.setdefault(server, deque())
        while recent and recent[0] <= self._clock() - self._window_s:
            recent.popleft()
        return recent

    def _stop_call(self, key: tuple[str, str], reason: str) -> None:
        self._calls.pop(key, None)
        self._stopped_calls[key] = reason
        while len(self._stopped_calls) > CALLS_REMEMBERED:
            del self._stopped_calls[next(iter(self._stopped_calls))]
