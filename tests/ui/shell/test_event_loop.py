"""The app's event loop forgets a cancelled delayed callback at once.

An HTTP client resets a long read timeout on every streamed chunk (cancel, schedule again): qasync
kept each cancelled callback, and a Qt timer for it, until its time came, so a long session of
streamed answers held about ten thousand of them at any moment.
"""

from __future__ import annotations

import asyncio
import gc

from PySide6.QtWidgets import QApplication

from desktop_app.ui.shell.event_loop import qt_event_loop


def _handles() -> int:
    return sum(type(o) is asyncio.Handle or isinstance(o, asyncio.Handle) for o in gc.get_objects())


def test_a_cancelled_long_timer_is_forgotten_and_a_live_one_still_fires(qapp: QApplication) -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        fired: list[str] = []
        before = _handles()
        for _ in range(2000):  # a streamed answer's chunks, each resetting a 120 s timeout
            loop.call_later(120, fired.append, "timeout").cancel()
        gc.collect()
        assert _handles() - before < 50, "cancelled callbacks are not kept until their time"
        loop.call_later(1.0, fired.append, "later")
        soon = loop.call_at(loop.time() + 1.2, fired.append, "at")
        dropped = loop.call_later(1.1, fired.append, "dropped")
        dropped.cancel()
        dropped.cancel()  # twice is harmless
        await asyncio.sleep(1.5)
        assert fired == ["later", "at"] and not soon.cancelled()

    with asyncio.Runner(loop_factory=lambda: qt_event_loop(qapp)) as runner:
        runner.run(scenario())


def test_what_runs_in_the_last_pass_after_the_loop_stopped_still_runs_on_it(qapp: QApplication) -> None:
    """qasync runs Qt's events once more after its loop stopped; a task stepped there (a server connecting as
    the window closed) found no running loop and died with an error nobody retrieved."""
    seen: list[bool] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()

        def late() -> None:
            seen.append(asyncio.get_running_loop() is loop)

        # Scheduled once this coroutine has returned: after the callback that stops the loop.
        current = asyncio.current_task()
        assert current is not None
        current.add_done_callback(lambda _task: loop.call_soon(late))

    with asyncio.Runner(loop_factory=lambda: qt_event_loop(qapp)) as runner:
        runner.run(scenario())
    assert seen == [True], "it ran, on this loop"
