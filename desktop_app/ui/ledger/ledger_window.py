"""The window a "What the model got" link opens: the ledger of the request behind an answer, with the
turn's other requests a choice away. One window, reused for each link clicked; it never blocks."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop_app.core.ledger.trace_view import RequestView, TraceView
from desktop_app.ui.ledger.ledger_view import LedgerView

DEFAULT_SIZE = (980, 680)
TITLE_CHARS = 40
"""The chat's title in the window's title is cut to this many characters: the title bar shows it whole."""


def window_title(chat_title: str) -> str:
    """ "What the model got — " and the chat's title, cut at a word to `TITLE_CHARS`."""
    title = " ".join(chat_title.split())
    if len(title) > TITLE_CHARS:
        cut = title[: TITLE_CHARS + 1].rsplit(" ", 1)[0] if " " in title[:TITLE_CHARS] else title[:TITLE_CHARS]
        title = cut.rstrip(" ,.;:?!—-") + "…"
    return f"What the model got — {title}" if title else "What the model got"


class LedgerWindow(QWidget):
    """A top-level window around a `LedgerView`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("ledgerWindow")
        self.setWindowTitle("What the model got")
        self.view = LedgerView()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.resize(*DEFAULT_SIZE)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self, self.close)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close)

    def show_request(self, trace: TraceView, request: RequestView, chat_title: str = "") -> None:
        """Show `request` among the requests of its turn, and bring the window up."""
        turn = trace.requests(request.turn)
        current = next((i for i, r in enumerate(turn) if r.number == request.number), len(turn) - 1)
        self.view.show_requests(turn, current)
        self.setWindowTitle(window_title(chat_title))
        self.show()
        self.raise_()
        self.activateWindow()
