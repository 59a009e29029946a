"""The GUI thread first: garbage collected on it only, and the interpreter handed back to it sooner.

CPython runs a collection in whichever thread allocates past its threshold: a worker importing
the model library, indexing a catalog or loading the tokenizer. A Qt object found in a garbage
cycle is then destroyed on that thread, and Qt aborts or crashes ("QObject::killTimer: Timers
cannot be stopped from another thread"). So automatic collection is off while the window lives,
and a timer on the GUI thread collects each generation once CPython's own thresholds are passed
(the pattern pyqtgraph and other Qt applications use).

Python also hands the interpreter between threads every 5 ms; the GUI thread, wanting it back
after each Qt call that released it, waits up to that long behind a worker doing Python work
(a streamed response assembled, a catalog indexed): a few such waits made 25-30 ms stalls as an
answer ended. While the window lives the interval is 1 ms.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import time
from collections.abc import Iterator
from typing import Final

from PySide6.QtCore import QObject, QTimer

from desktop_app.core.long_lived import collection_paused

IDLE_CHECK_MS: Final = 100
BUSY_CHECK_MS: Final = 10
"""While the app allocates, it is checked every 10 ms: each collection then covers what 10 ms
allocated and stays short (CPython's own, every 700 objects, would be shorter still)."""
SWITCH_INTERVAL_S: Final = 0.001
FULL_EVERY_S: Final = 30.0
"""CPython runs a full collection only once the objects that survived since the last one are a
quarter of all (a count Python does not expose); this keeps full collections as rare, by time."""


class GuiThreadCollector(QObject):
    """Collects garbage on the thread it lives on (the GUI thread), generation by generation."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(IDLE_CHECK_MS)
        self._timer.timeout.connect(self.collect_due)

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Hand collection back to CPython (as it was before `start`)."""
        self._timer.stop()
        if self._was_enabled:
            gc.enable()

    def collect_due(self) -> None:
        """Collect the generations CPython would have collected by now, and no more."""
        young, middle, old = gc.get_count()
        first, second, third = self._thresholds
        busy = first > 0 and young > first
        self._timer.setInterval(BUSY_CHECK_MS if busy else IDLE_CHECK_MS)
        if not busy or collection_paused():  # long-lived objects are being made: frozen after
            return
        generation = 0
        if middle > second:
            generation = 1
            now = time.monotonic()
            if old > third and now - self._last_full >= FULL_EVERY_S:
                generation, self._last_full = 2, now
        gc.collect(generation)


@contextlib.contextmanager
def gui_thread_first() -> Iterator[GuiThreadCollector]:
    """For the duration of the block: garbage collected only on this (the GUI) thread, and the
    interpreter switched between threads every millisecond."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    collector = GuiThreadCollector()
    collector.start()
    try:
        yield collector
    finally:
        collector.stop()
        collector.deleteLater()
        sys.setswitchinterval(interval)
