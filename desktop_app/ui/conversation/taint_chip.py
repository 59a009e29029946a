"""The conversation header's mark that untrusted content is in the chat, and why.

It stays for the life of the conversation (resumed chats included): the content is in the
history the model reads from then on, so rules stay paused for tools that are not read-only.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE

_EXPLAIN: Final = (
    "Content from outside your control is in this conversation: a resource, prompt, tool result or the"
    " instructions of a server you have not marked as trusted, or a result from a tool that reaches the open"
    " world. It may try to steer the model. From now on, tools that are not read-only ask you every time,"
    " even those you allowed for this chat or always allow. Start a new chat to leave it behind."
)
_PREFIX: Final = "⚠ Untrusted content in this chat: "
_SIDE: Final = 16
_PADDING: Final = 24
"""The chip's horizontal padding and border, which the text must leave room for."""


class TaintChip(QWidget):
    """A slim one-line header: "⚠ Untrusted content in this chat: <first reason> (+N more)"; hidden when clean.

    A long reason is cut with "…" to keep the header one line; the tooltip has every reason whole.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taintHeader")
        self.label = QLabel()
        self.label.setObjectName("taintChip")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        themed(
            self.label,
            lambda p: (
                f"#taintChip {{ border: 1px solid {p.caution}; border-radius: {SPACE.radius + 2}px;"
                f" padding: {SPACE.xs}px {SPACE.m + 2}px; }}"
            ),
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(_SIDE, 6, _SIDE, 2)
        layout.addWidget(self.label, 1)
        self.reasons: list[str] = []
        self._more = ""
        self.text = ""
        """The chip's whole line, before any cut."""
        self.hide()

    def set_reasons(self, reasons: list[str]) -> None:
        self.reasons = list(reasons)
        if not reasons:
            self.text = ""
            self.hide()
            return
        self._more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
        self.text = f"{_PREFIX}{reasons[0]}{self._more}"
        listed = "\n".join(f"• {reason}" for reason in reasons)
        self.label.setToolTip(f"{_EXPLAIN}\n\n{listed}")
        self._fit()
        self.show()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """Cut the first reason, not the words around it, so the line fits the header."""
        if not self.reasons:
            return
        metrics = self.label.fontMetrics()
        room = self.width() - 2 * _SIDE - _PADDING - metrics.horizontalAdvance(_PREFIX + self._more)
        reason = metrics.elidedText(self.reasons[0], Qt.TextElideMode.ElideRight, max(room, 40))
        self.label.setText(f"{_PREFIX}{reason}{self._more}")
