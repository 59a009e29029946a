"""The line at the end of the conversation while a turn runs: what it waits for, and for how long.

Shown the moment Send is pressed, so a first message (the model library still loading, a slow
provider) never looks ignored; `turn_waits.show_wait` names each wait as the turn's events arrive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.ui.style import MUTED

SHOW_SECONDS_AFTER: Final = 1.0
"""A wait shorter than this needs no clock."""
LOADING_LIBRARY: Final = "Loading the model library…"
WAITING_FOR_PROVIDER: Final = "Waiting for the provider…"
READING_ATTACHMENTS: Final = "Reading the attached resources…"


class TurnStatus(QLabel):
    """ "Waiting for the provider… 3 s": one muted line, its seconds counted once the wait passes one."""

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.setObjectName("turnStatus")
        self.setTextFormat(Qt.TextFormat.PlainText)  # it names tools and servers: their words, never markup
        self.setWordWrap(True)
        self.setStyleSheet(f"#turnStatus {{ {MUTED} padding: 2px 4px; }}")
        self._clock = clock
        self._waiting = ""
        self._since = 0.0
        self._ticks = QTimer(self)
        self._ticks.setInterval(250)
        self._ticks.timeout.connect(self._show)
        self.hide()

    @property
    def waiting(self) -> str:
        """What the turn waits for now ("" while nothing is shown)."""
        return self._waiting

    def wait_for(self, what: str) -> None:
        """Say the turn now waits for `what` ("Waiting for the provider…"); its clock starts again."""
        if what != self._waiting:
            self._waiting = what
            self._since = self._clock()
        self._show()
        self.show()
        self._ticks.start()

    def done(self) -> None:
        """The turn answers on screen (or ended): the line goes."""
        self._waiting = ""
        self._ticks.stop()
        self.hide()

    def _show(self) -> None:
        elapsed = self._clock() - self._since
        self.setText(self._waiting + (f" {int(elapsed)} s" if elapsed >= SHOW_SECONDS_AFTER else ""))
