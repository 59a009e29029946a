"""Which tool call a server's question belongs to, and whether that call is still wanted.

On 2026-07-28 a server asks inside its reply to `tools/call` ("input required"), and the SDK runs
our callbacks in the very task that made the call: a context variable names the call. On
2025-11-25 the server sends a request of its own, which arrives on the session's reader task:
it is attributed to that server's tool call in flight, if there is one (the latest, when several
run). A question whose call ends (the user stopped the turn) is withdrawn, and one that arrives
just after its call was cancelled is refused rather than shown to nobody's benefit.

A call's timeout measures the server, not the user: its clock stops while a question of the call
is open or the user's model works for it (`CallScope.busy`), and restarts in full afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Final, TypeVar

T = TypeVar("T")

CANCELLED_GRACE_S: Final = 10.0
"""How long after a cancelled call a stray question from its server is still taken as belonging to it."""


class CallEnded(Exception):
    """The tool call a question belonged to ended (cancelled or finished) before the user answered."""


@dataclass(eq=False)
class CallScope:
    """One tool call in flight on one server."""

    server: str
    call_id: str | None
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False
    busy: int = 0
    """Questions (or model runs) of this call in progress: the server is waiting on us, not we on it."""
    quiet_since: float = field(default_factory=time.monotonic)

    @contextlib.contextmanager
    def on_our_side(self) -> Iterator[None]:
        """The call waits on the user (or their model) during this block: its timeout does not run."""
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1
            self.quiet_since = time.monotonic()


_current: ContextVar[CallScope | None] = ContextVar("mcp_desk_tool_call", default=None)


class CallTracker:
    """The tool calls one server is running now, and when it last had one cancelled."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._in_flight: list[CallScope] = []
        self._cancelled_at: float | None = None

    @contextlib.asynccontextmanager
    async def track(self, call_id: str | None) -> AsyncIterator[CallScope]:
        """Mark a tool call as running for the duration of the block (in this task's context)."""
        scope = CallScope(self.server, call_id)
        self._in_flight.append(scope)
        token = _current.set(scope)
        try:
            yield scope
        except asyncio.CancelledError:
            scope.cancelled = True
            self._cancelled_at = time.monotonic()
            raise
        finally:
            _current.reset(token)
            self._in_flight.remove(scope)
            scope.ended.set()

    def scope(self) -> CallScope | None:
        """The call a question arriving now belongs to: this task's own, else the latest in flight."""
        own = _current.get()
        if own is not None and own.server == self.server:
            return own
        return self._in_flight[-1] if self._in_flight else None

    def recently_cancelled(self) -> bool:
        """A call was cancelled moments ago and none runs now: a question now belongs to the dead call."""
        if self._in_flight or self._cancelled_at is None:
            return False
        return time.monotonic() - self._cancelled_at < CANCELLED_GRACE_S


async def within_timeout(scope: CallScope, timeout: float, work: Awaitable[T]) -> T:
    """Await `work`, raising TimeoutError once the server has kept us waiting `timeout` seconds in all
    since the last question of the call ended (time spent on our side does not count)."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            left = timeout if scope.busy else scope.quiet_since + timeout - time.monotonic()
            if left <= 0:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                raise TimeoutError
            await asyncio.wait({task}, timeout=left)
            if task.done():
                return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def unless_ended(scope: CallScope | None, work: Awaitable[T]) -> T:
    """Await `work`, but cancel it and raise `CallEnded` if the call in `scope` ends first."""
    if scope is None:
        return await work
    task = asyncio.ensure_future(work)
    ended = asyncio.ensure_future(scope.ended.wait())
    try:
        await asyncio.wait({task, ended}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        ended.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    raise CallEnded
