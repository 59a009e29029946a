"""Cooperative background work on the Qt thread, a few milliseconds per event-loop turn.

PyMuPDF holds the GIL while it renders (measured: a render thread stalls the UI as long as the
render), so a worker thread would not keep typing smooth. Instead work is cut into small steps
and run between events, each turn bounded by a time budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject, QTimer

BUDGET_SECONDS: Final = 0.008


class SliceRunner(QObject):
    """Calls `step` repeatedly while it returns True, yielding to the event loop every budget."""

    def __init__(self, step: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._step = step
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._run)

    @property
    def busy(self) -> bool:
        return self._timer.isActive()

    def kick(self) -> None:
        """There may be work: run it soon (idempotent)."""
        if not self._timer.isActive():
            self._timer.start()

    def _run(self) -> None:
        deadline = time.perf_counter() + BUDGET_SECONDS
        while self._step():
            if time.perf_counter() >= deadline:
                self._timer.start()
                return
