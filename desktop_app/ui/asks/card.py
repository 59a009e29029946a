"""The frame every question card shares: who asks, what about, the answer buttons, the outcome.

A card holds a future the asking coroutine awaits; the event loop and the rest of the window
keep running while the user thinks. Subclasses fill `body` and call `answer(reply)`; the card
then collapses to a one-line outcome. Cancelled or timed-out questions are withdrawn the same
way, so every question in the family looks and ends alike.
"""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Any, Generic, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.asks.question import Question
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.theme import muted, on_theme
from desktop_app.qt_kit.tokens import Palette
from desktop_app.ui.widgets.bordered_frame import CALM_BORDER, BorderedFrame

R = TypeVar("R")


class Tone(StrEnum):
    """How loudly a card asks: an everyday question, one that needs care, one that can do harm."""

    INFO = "accent"
    CAUTION = "caution"
    DANGER = "danger"

    def colour(self, palette: Palette) -> str:
        """The tone's colour in `palette`: the token it is named after (3:1 on every background)."""
        return str(getattr(palette, self.value))


class AskCard(BorderedFrame, Generic[R]):
    """A question's card: a header, the subclass's `body`, a row of buttons, then the outcome."""

    sig_answered = Signal(object)
    """The user answered; carries the reply (also set on `reply`)."""
    sig_withdrawn = Signal(str)
    """The question ended without an answer (cancelled, timed out, its server left); carries why."""

    def __init__(
        self, question: Question[R], title: str, *, tone: Tone = Tone.INFO, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.question = question
        self.reply: asyncio.Future[R] = asyncio.get_event_loop().create_future()
        self._tone: Tone | None = tone
        """The open card's tone; None once it is answered or withdrawn (then its border is calm)."""
        self.setObjectName("askCard")
        on_theme(self, _show_tone)  # the border in the tone's colour of the theme shown, now and after a change
        self.title = QLabel(title)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.origin = QLabel(f"Asked by <b>{escape(question.server)}</b>")
        muted(self.origin)
        self.body = QVBoxLayout()
        self.body.setContentsMargins(0, 0, 0, 0)
        self.buttons = FlowLayout()  # the answers wrap onto a second line in a narrow column instead of being cut
        self.buttons.setContentsMargins(0, 4, 0, 0)
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        muted(self.outcome)
        self.outcome.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.origin)
        layout.addLayout(self.body)
        layout.addLayout(self.buttons)
        layout.addWidget(self.outcome)
        self._answer_buttons: list[QPushButton] = []
        self._stretched = False
        self.withdrawn: str | None = None
        """Why the card ended without an answer, once it has."""

    # -- building (subclasses) -------------------------------------------------------------

    def add_button(self, text: str, reply: Any = None, *, default: bool = False, right: bool = False) -> QPushButton:
        """A button that answers `reply` (or, when `reply` is None, only what the caller connects)."""
        button = QPushButton(text)
        button.setDefault(default)
        button.setAutoDefault(True)
        if reply is not None:
            button.clicked.connect(lambda: self.answer(reply))
        if right and not self._stretched:
            self.buttons.addStretch()
            self._stretched = True
        self.buttons.addWidget(button)
        self._answer_buttons.append(button)
        return button

    def focus(self) -> None:
        """Put the keyboard on the default answer (the window calls this when the card appears)."""
        for button in self._answer_buttons:
            if button.isDefault():
                button.setFocus(Qt.FocusReason.OtherFocusReason)
                return

    # -- ending ----------------------------------------------------------------------------

    @property
    def open(self) -> bool:
        return not self.reply.done() and self.withdrawn is None

    def answer(self, reply: R, summary: str | None = None) -> None:
        """Resolve the question with `reply` and collapse to `summary` (default: `describe(reply)`)."""
        if not self.open:
            return
        self.reply.set_result(reply)
        self._close(summary if summary is not None else self.describe(reply), tone=None)
        self.sig_answered.emit(reply)

    def withdraw(self, why: str) -> None:
        """End without an answer (cancelled, timed out, the server left): the card says why."""
        if self.withdrawn is not None or (self.reply.done() and not self.reply.cancelled()):
            return  # answered or already withdrawn (a cancelled asker cancels `reply` on its way out)
        self.withdrawn = why
        self.reply.cancel()
        self._close(why, tone=None)
        self.sig_withdrawn.emit(why)

    def describe(self, reply: R) -> str:
        """The one-line outcome shown once answered; subclasses word it for their reply type."""
        return "Answered"

    def _close(self, text: str, *, tone: Tone | None) -> None:
        for button in self._answer_buttons:
            button.setEnabled(False)
            button.hide()
        self.collapse()
        self.outcome.setText(text)
        self.outcome.show()
        self._tone = None
        self._set_border(CALM_BORDER, 1)

    def collapse(self) -> None:
        """Hide what only mattered while open (subclasses hide their editors here)."""

    def _set_border(self, colour: QColor | str, width: int) -> None:
        """The card's border; an approval panel living in a tool card hands it to that card."""
        self.set_border(colour, width)


def _show_tone(card: QWidget, palette: Palette) -> bool:
    """An open card's border in its tone's colour in `palette` (a theme's follower: it holds no card)."""
    if not isinstance(card, AskCard) or card._tone is None:
        return False
    card._set_border(card._tone.colour(palette), 2)
    return True


def escape(text: str) -> str:
    """Plain text for a rich-text label (servers' words are never markup)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
