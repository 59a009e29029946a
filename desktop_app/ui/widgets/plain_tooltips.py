"""An item view's tooltips shown as the plain text they are.

Qt guesses a tooltip's format: text whose first line holds a tag is drawn as rich text. A row's
tooltip often quotes a server (why it failed, in its own words), so a server could draw a picture
of any size there, or have Qt read a file of the user's as an image (on Windows, `//host/share`
paths reach the network). `PlainToolTips` shows each row's tooltip escaped instead; the row's
tooltip data stays the text it was.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QAbstractItemView, QToolTip


def as_plain_rich_text(text: str) -> str:
    """Rich text that shows `text` exactly, line breaks and all."""
    return f'<p style="white-space:pre-wrap">{html.escape(text)}</p>'


class PlainToolTips(QObject):
    """Installed on `view`'s viewport: answers its tooltip events with the row's tooltip, escaped."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._view = view
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ToolTip or not isinstance(event, QHelpEvent):
            return False
        index = self._view.indexAt(event.pos())
        text = index.data(Qt.ItemDataRole.ToolTipRole) if index.isValid() else None
        if isinstance(text, str) and text:
            QToolTip.showText(
                event.globalPos(), as_plain_rich_text(text), self._view.viewport(), self._view.visualRect(index)
            )
        else:
            QToolTip.hideText()
        return True
