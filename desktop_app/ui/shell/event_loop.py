"""The event loop the app runs on: qasync's Qt loop, with asyncio's async-generator hooks and
long timers that are forgotten when cancelled.

asyncio's own loops install `sys.set_asyncgen_hooks` while they run, so an async generator left
unfinished (an HTTP stream cut off early, an MCP session's reader) is closed on the loop and
`shutdown_asyncgens` finds it. qasync's `run_forever` runs Qt's loop without them: such generators
were finalised by the garbage collector outside any loop ("Exception ignored … no running event loop").

qasync keeps every delayed callback, cancelled or not, with a Qt timer until its time comes. The
model library's HTTP client resets a 120 s read timeout on every streamed chunk, so a long session
held about ten thousand cancelled callbacks and Qt timers at any moment. Delays of a second or
more go to `_LongTimers` here instead, which kills a callback's Qt timer as soon as it is cancelled.

qasync's `run_until_complete` runs Qt's events once more after its loop has stopped, with no running
loop set: a task stepped there (a server connecting as the window closes) failed on its next
`create_task` or `Event.wait` with "no running event loop", an error nobody retrieved. That pass runs
as this loop here.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from contextvars import Context
from typing import Any, Final

import qasync
from PySide6.QtCore import QEventLoop, QObject, QTimerEvent
from PySide6.QtWidgets import QApplication

LONG_DELAY_S: Final = 1.0
"""Delays from this long on are the timeouts that get cancelled and set again, rather than waits."""


class _ForgettableHandle(asyncio.Handle):
    """A delayed callback that tells its timer when it is cancelled."""

    __slots__ = ("_forget",)

    def __init__(
        self, callback: Callable[..., object], args: tuple[Any, ...], loop: Any, context: Context | None
    ) -> None:
        super().__init__(callback, args, loop, context=context)
        self._forget: Callable[[], None] | None = None

    def cancel(self) -> None:
        forget, self._forget = self._forget, None
        super().cancel()
        if forget is not None:
            forget()


class _LongTimers(QObject):
    """One Qt timer per pending long callback, killed when the callback runs or is cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self._pending: dict[int, _ForgettableHandle] = {}

    def add(self, handle: _ForgettableHandle, delay: float) -> _ForgettableHandle:
        timer = self.startTimer(int(delay * 1000))
        self._pending[timer] = handle
        handle._forget = lambda: self._drop(timer)
        return handle

    def _drop(self, timer: int) -> None:
        if self._pending.pop(timer, None) is not None:
            self.killTimer(timer)

    def timerEvent(self, event: QTimerEvent) -> None:
        timer = event.timerId()
        self.killTimer(timer)
        handle = self._pending.pop(timer, None)
        if handle is not None and not handle.cancelled():
            handle._forget = None
            handle._run()

    def stop(self) -> None:
        for timer in list(self._pending):
            self._drop(timer)


class QtEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """qasync's loop, finalising async generators on itself as asyncio's loops do."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._app = app
        self._long_timers = _LongTimers()

    def run_forever(self) -> Any:
        previous = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook)
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*previous)

    def run_until_complete(self, future: Any) -> Any:
        """qasync's, with its last pass over Qt's events made as this loop (see the module's note)."""
        if self.is_running():
            raise RuntimeError("Event loop already running")
        future = asyncio.ensure_future(future, loop=self)

        def stop(_future: object) -> None:
            self.stop()

        future.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            future.remove_done_callback(stop)
        asyncio.events._set_running_loop(self)
        try:
            self._app.eventDispatcher().processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
        finally:
            asyncio.events._set_running_loop(None)
        if not future.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return future.result()

    def call_later(
        self, delay: float, callback: Callable[..., object], *args: Any, context: Context | None = None
    ) -> asyncio.Handle:
        if delay < LONG_DELAY_S:
            return super().call_later(delay, callback, *args, context=context)  # type: ignore[no-any-return]
        return self._long_timers.add(_ForgettableHandle(callback, args, self, context), delay)

    def close(self) -> None:
        self._long_timers.stop()
        super().close()


def qt_event_loop(app: QApplication) -> QtEventLoop:
    """A loop factory for `asyncio.Runner`."""
    return QtEventLoop(app)
