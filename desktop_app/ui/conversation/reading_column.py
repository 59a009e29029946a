"""The conversation as a readable column: centred at a comfortable width, its messages' actions shown
while the keyboard is on them."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLayout, QWidget

from desktop_app.qt_kit.theme import on_theme
from desktop_app.qt_kit.tokens import READABLE_WIDTH, SPACE, Palette
from desktop_app.ui.conversation.message_bubble import MessageBubble


def centre_column(layout: QLayout, width: int) -> None:
    """Side margins that keep the column at most `READABLE_WIDTH` wide, centred in `width`."""
    side = max(SPACE.xl, (width - READABLE_WIDTH) // 2)
    margins = layout.contentsMargins()
    if margins.left() != side:
        layout.setContentsMargins(side, margins.top(), side, margins.bottom())


class SurfaceColumn(QWidget):
    """What the conversation's rows sit on: the theme's surface, as its palette's window colour (a style
    sheet here would cascade to every row, card and button of the chat, and polish each one it reaches)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAutoFillBackground(True)
        on_theme(self, _fill_with_surface)


def _fill_with_surface(widget: QWidget, tokens: Palette) -> bool:
    palette = widget.palette()
    surface = QColor(tokens.surface)
    if palette.color(QPalette.ColorRole.Window) == surface:
        return False
    palette.setColor(QPalette.ColorRole.Window, surface)
    widget.setPalette(palette)
    return True


class FocusReveal(QObject):
    """Tells a message in `column` when the keyboard's focus enters or leaves it (one connection per
    column, not one per message)."""

    def __init__(self, column: QWidget) -> None:
        super().__init__(column)
        self._column = column
        if isinstance(app := QApplication.instance(), QApplication):
            app.focusChanged.connect(self._moved)

    def _moved(self, old: QWidget | None, new: QWidget | None) -> None:
        for widget, focused in ((old, False), (new, True)):
            if (bubble := self.message_around(widget)) is not None:
                bubble.set_focused(focused)

    def message_around(self, widget: QWidget | None) -> MessageBubble | None:
        """The message of the column that holds `widget`, if any (its parents, never a search)."""
        while widget is not None and widget is not self._column:
            if isinstance(widget, MessageBubble):
                return widget
            widget = widget.parentWidget()
        return None
