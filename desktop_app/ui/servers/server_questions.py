"""The questions servers ask outside a turn, shown in the server manager above the log.

A long form scrolls here instead of squeezing the log away. Each server's count of open questions is
kept here, so its row can say that it asks something; an answered or withdrawn card stays readable for
`CARD_LINGER_MS`, then leaves.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from desktop_app.ui.asks.card import AskCard

CARD_LINGER_MS = 4000


class ServerQuestions(QScrollArea):
    """The open questions' cards, newest last; hidden while none is shown."""

    sig_asking_changed = Signal(str)
    """A server's number of open questions went down (its row should say so)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._asking: dict[str, int] = {}
        """Open questions per server, shown on its row."""
        cards = QWidget()
        self._cards = QVBoxLayout(cards)
        self._cards.setContentsMargins(0, 0, 0, 0)
        self._cards.addStretch(1)  # cards keep their own height; spare room stays below them
        self.setObjectName("serverQuestions")
        self.setWidget(cards)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.hide()

    def asking(self, server: str) -> bool:
        """Whether `server` has a question still open."""
        return self._asking.get(server, 0) > 0

    def add(self, card: AskCard[Any]) -> None:
        """Show the card above those already here, counted against its server until it is settled."""
        server = card.question.server
        self._cards.insertWidget(self._cards.count() - 1, card)
        self.show()
        self._asking[server] = self._asking.get(server, 0) + 1
        card.sig_answered.connect(lambda _reply: self._retire(card))
        card.sig_withdrawn.connect(lambda _why: self._retire(card))

    def scroll_to_top(self) -> None:
        self.verticalScrollBar().setValue(0)

    def _retire(self, card: AskCard[Any]) -> None:
        server = card.question.server
        self._asking[server] = max(self._asking.get(server, 0) - 1, 0)
        self.sig_asking_changed.emit(server)

        def remove() -> None:
            card.deleteLater()
            if self._cards.count() <= 2:  # this card (until deleted) and the stretch
                self.hide()

        # The outcome stays readable for a moment, then the card leaves the panel.
        QTimer.singleShot(CARD_LINGER_MS, card, remove)  # not after the card is gone
