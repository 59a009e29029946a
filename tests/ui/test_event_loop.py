"""The app's event loop forgets a cancelled delayed callback at once.

An HTTP client resets a long read timeout on every streamed chunk (cancel, schedule again): qasync
kept each cancelled callback, and a Qt timer for it, until its time came, so a long session of
streamed answers held about ten thousand of them at any moment.
"""

from __future__ import annotations

import asyncio
import gc

from PySide6.QtWidgets import QApplication

from desktop_app.ui.event_loop import qt_event_loop


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
