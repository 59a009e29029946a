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

from desktop_app.qt_kit.theme import themed

SHOW_SECONDS_AFTER: Final = 1.0
"""A wait shorter than this needs no clock."""
LOADING_LIBRARY: Final = "Loading the model library…"
WAITING_FOR_PROVIDER: Final = "Waiting for the provider…"
READING_ATTACHMENTS: Final = "Reading the attached resources…"
WAITING_FOR_YOU: Final = "Waiting for your answer…"


class TurnStatus(QLabel):
    """ "Waiting for the provider… 3 s": one muted line, its seconds counted once the wait passes one."""

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.setObjectName("turnStatus")
        self.setTextFormat(Qt.TextFormat.PlainText)  # it names tools and servers: their words, never markup
        self.setWordWrap(True)
        themed(self, lambda p: f"#turnStatus {{ color: {p.muted}; padding: 2px 4px; }}")
        self._clock = clock
        self._waiting = ""
        self._since = 0.0
        self._paused: tuple[str, float] | None = None
        """The wait a question card interrupted, with its start: it goes on once the card is answered."""
        self._open_cards = 0
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

    def question_opened(self) -> None:
        """A card asks the user something while the turn waits (a form from a tool, a task's input): the
        turn waits for them now, not for the tool; a line not shown (an approval's) stays hidden."""
        self._open_cards += 1
        if self._paused is None and self._waiting:
            self._paused = (self._waiting, self._since)
            self.wait_for(WAITING_FOR_YOU)

    def question_closed(self) -> None:
        """A card was answered (or withdrawn): once none is open, the interrupted wait goes on, its clock kept."""
        self._open_cards = max(self._open_cards - 1, 0)
        if self._open_cards or self._paused is None:
            return
        paused, self._paused = self._paused, None
        if self._waiting == WAITING_FOR_YOU:  # else the turn has moved on to another wait meanwhile
            self._waiting, self._since = paused
            self._show()

    def done(self) -> None:
        """The turn answers on screen (or ended): the line goes."""
        self._paused = None
        self._waiting = ""
        self._ticks.stop()
        self.hide()

    def _show(self) -> None:
        elapsed = self._clock() - self._since
        self.setText(self._waiting + (f" {int(elapsed)} s" if elapsed >= SHOW_SECONDS_AFTER else ""))
