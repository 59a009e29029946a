"""Python's cyclic garbage collected on the GUI thread only, while the window lives.

CPython runs a collection in whichever thread allocates past its threshold: a worker importing
the model library, indexing a catalog or loading the tokenizer. A Qt object found in a garbage
cycle is then destroyed on that thread, and Qt aborts or crashes ("QObject::killTimer: Timers
cannot be stopped from another thread"). So automatic collection is off while the window lives,
and a timer on the GUI thread collects each generation once CPython's own thresholds are passed
(the pattern pyqtgraph and other Qt applications use).
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from typing import Final

from PySide6.QtCore import QObject, QTimer

CHECK_MS: Final = 100
"""Between checks the young generation grows by what 100 ms allocate: its collection stays short."""
FULL_EVERY_S: Final = 30.0
"""CPython runs a full collection only once the objects that survived since the last one are a
quarter of all (a count Python does not expose); this keeps full collections as rare, by time."""


class GuiThreadCollector(QObject):
    """Collects garbage on the thread it lives on (the GUI thread), generation by generation."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
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
        if first <= 0 or young <= first:
            return
        generation = 0
        if middle > second:
            generation = 1
            now = time.monotonic()
            if old > third and now - self._last_full >= FULL_EVERY_S:
                generation, self._last_full = 2, now
        gc.collect(generation)


@contextlib.contextmanager
def collected_on_gui_thread() -> Iterator[GuiThreadCollector]:
    """Garbage collected only on this (the GUI) thread for the duration of the block."""
    collector = GuiThreadCollector()
    collector.start()
    try:
        yield collector
    finally:
        collector.stop()
        collector.deleteLater()
