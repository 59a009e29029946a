"""A one-line label that fits the width it is given instead of asking for more."""

from __future__ import annotations

import html
from typing import Final

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

_SLACK: Final = 2


class ElidedLabel(QLabel):
    """Shortens its text with an ellipsis (in the middle by default, so URIs stay told apart).

    A plain label asks for its whole text's width, so a long name or URI would widen the dock
    it sits in; this one never does, and the whole text is in its tooltip when it is cut.
    """

    def __init__(
        self, text: str = "", mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._mode = mode
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)  # its text is often a server's: never rich text
        self.setText(text)

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self._fit()
        self.updateGeometry()  # its wish follows the whole text, though what it shows may not have changed

    def clear(self) -> None:
        self.setText("")

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        """The whole text's width and a pixel or two more: given exactly its advance, rounding in the
        eliding would cut the last character."""
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + _SLACK, super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, self._mode, max(self.width(), 0))
        super().setText(shown)
        # Escaped: the full text is often a server's (a resource's name), and Qt guesses rich text.
        self.setToolTip(f'<p style="white-space:pre-wrap">{html.escape(self._full)}</p>' if shown != self._full else "")
