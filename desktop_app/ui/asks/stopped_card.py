"""The one card shown when a server, a tool call or a task used up its questions (`core.asks.budget`).

It stands in for every question refused after it: the user reads once what was stopped and why,
instead of answering card after card. It asks nothing; OK only folds it to its one line.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.core.asks.question import AskingStopped
from desktop_app.ui.asks.card import AskCard, Tone, escape

AFTER = (
    "Its further questions are refused without being shown to you; a task that kept asking is cancelled on its server."
)


class StoppedCard(AskCard[None]):
    """What was stopped and why; OK."""

    def __init__(self, question: AskingStopped, parent: QWidget | None = None) -> None:
        super().__init__(question, "<b>Too many questions: stopped asking</b>", tone=Tone.CAUTION, parent=parent)
        self.question: AskingStopped = question
        self.reason = QLabel(f"{escape(question.reason[:1].upper() + question.reason[1:])}.<br>{AFTER}")
        self.reason.setTextFormat(Qt.TextFormat.RichText)
        self.reason.setWordWrap(True)
        self.body.addWidget(self.reason)
        self.ok = self.add_button("OK", default=True)
        self.ok.clicked.connect(lambda: self.answer(None))

    def describe(self, reply: None) -> str:
        return f"Stopped asking: {self.question.reason}"

    def collapse(self) -> None:
        self.reason.hide()
