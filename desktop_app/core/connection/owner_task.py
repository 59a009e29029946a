"""The owner task of a connection: started once per run, stopped within a bound, never left waiting.

A server's transport winds down inside the SDK under an anyio shield (close stdin, wait, SIGTERM,
SIGKILL, close the pipes); every step is bounded. A native `Task.cancel()` is not stopped by that
shield: delivered mid-way it abandons the wind-down, with the server alive and its stdin open, and
the SDK's stdout reader then drains that pipe (shielded, until it ends) forever: the task never ends.
So the owner runs inside an anyio cancel scope of its own, and stopping cancels that scope: whatever
the owner awaits is cancelled, and the SDK's shielded wind-down still runs to its end. A native
cancel is only the last resort for an owner stuck past every bound, and it is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import Callable, Coroutine, Iterator
from contextvars import Context
from typing import Any, Final

import anyio

WIND_DOWN_S: Final = 4.0
"""How long the SDK may take to end a stdio server once cancelled: a flush (0.5 s), the grace after stdin
closes, SIGTERM, SIGKILL and the reaping (2 s), with room for a loaded machine; then something is stuck."""

Note = Callable[[str, str], None]


class OwnerTask:
    """One run of an owner coroutine in its own cancel scope; `idle` says whether it only waits."""

    def __init__(self, note: Note) -> None:
        self._note = note
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self.idle = False
        """True while the owner only waits (for work, a stop or a retry): stopping then needs no cancel."""

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, body: Coroutine[Any, Any, None], name: str, context: Context | None = None) -> None:
        self.idle = False
        self._task = asyncio.create_task(self._scoped(body), name=name, context=context)
        # Cancelled before it first ran (stopped at once), the task never awaited `body`: closed, not left to
        # the collector's "never awaited" warning. After a run it is finished and closing does nothing.
        self._task.add_done_callback(lambda _task: body.close())

    async def _scoped(self, body: Coroutine[Any, Any, None]) -> None:
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                await body
            finally:
                self._scope = None

    @contextlib.contextmanager
    def idling(self) -> Iterator[None]:
        """The owner only waits meanwhile: a stop need not cancel it."""
        self.idle = True
        try:
            yield
        finally:
            self.idle = False

    def cancel(self) -> None:
        """Cancel what the owner awaits; the transport's shielded wind-down still completes."""
        task = self._task
        if task is None or task.done():
            return
        if self._scope is not None:
            self._scope.cancel()
        else:
            task.cancel()  # not started yet: nothing of the SDK's is open

    async def stop(self, asked: bool, timeout: float) -> None:
        """The owner was `asked` to stop (it was idle) or is cancelled now; either way it has ended on return,
        unless it is stuck past every bound (then it is logged, cancelled natively, and left)."""
        task = self._task
        if task is None or task.done():
            return
        if not asked:
            self.cancel()  # a handshake or a listing in progress is work thrown away: unwind it now
        if await _ended(task, timeout):
            return
        self.cancel()  # overstayed a graceful close: cancel whatever it still waits for
        if await _ended(task, WIND_DOWN_S):
            return
        self._note("error", f"the connection did not end when stopped; it was waiting in:\n{_stack(task)}")
        task.cancel()
        await _ended(task, WIND_DOWN_S)


async def _ended(task: asyncio.Task[None], timeout: float) -> bool:
    """Whether `task` ended within `timeout`; a cancellation of the caller still propagates."""
    done, _ = await asyncio.wait({task}, timeout=timeout)
    return bool(done)


def _stack(task: asyncio.Task[None]) -> str:
    text = io.StringIO()
    task.print_stack(limit=15, file=text)
    return text.getvalue()
