"""A card's rounded border, painted rather than styled.

A tool call's card and a question's card change their border as a question opens and closes. Done
with a style sheet, each change re-polished the card and every widget inside it and laid them out
again: 10-12 ms of the window's thread a change, twice per approved call. Painted, it is a repaint.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QFrame, QWidget

CALM_BORDER: Final = QColor(127, 127, 127, 90)
"""A settled card's border: a faint grey that reads on light and dark backgrounds."""
RADIUS: Final = 8.0


class BorderedFrame(QFrame):
    """A frame with a rounded border of a colour and width; width 0 draws none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._colour = QColor(CALM_BORDER)
        self._width = 1

    @property
    def border(self) -> tuple[QColor, int]:
        """The border's colour and width."""
        return QColor(self._colour), self._width

    def set_border(self, colour: QColor | str, width: int) -> None:
        colour = QColor(colour)
        if colour == self._colour and width == self._width:
            return
        self._colour, self._width = colour, width
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._width <= 0:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self._colour, self._width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inset = self._width / 2
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(inset, inset, -inset, -inset), RADIUS, RADIUS)
        painter.end()
