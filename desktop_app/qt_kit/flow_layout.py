"""A layout that places items left to right and wraps them onto new lines, like words.

Rows of chips (attachments, resources a prompt brought), a tool's claims and a viewer's toolbar use
it so that many of them wrap instead of widening the window. It lives below the window's widgets so
the resource browser's viewers can use it too.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QSpacerItem, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._heights: dict[int, int] = {}
        """Heights by width, until the items change: a layout pass asks the same few widths many times."""
        self._minimum: QSize | None = None
        """The same for the minimum size (a chat's column asks each card's row on every pass)."""
        self.setContentsMargins(0, 0, 0, 0)

    def invalidate(self) -> None:
        self._heights.clear()
        self._minimum = None
        super().invalidate()

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)
        self.invalidate()

    def addStretch(self) -> None:
        """What follows goes to the right end of its line: the line's leftover room is put here."""
        self.addItem(QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self._items):
            return None
        self.invalidate()
        return self._items.pop(index)

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = self._arrange(QRect(0, 0, width, 0), move=False)
        return height

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        if self._minimum is None:
            size = QSize()
            for item in self._items:
                size = size.expandedTo(item.minimumSize())
            margins: QMargins = self.contentsMargins()
            self._minimum = size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())
        return QSize(self._minimum)

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        """Place the items (or only measure, with `move` False); returns the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        lines: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        used = 0
        for item in self._items:
            if item.spacerItem() is not None:
                lines[-1].append((item, QSize(0, 0)))
                continue
            if item.isEmpty():
                continue
            hint = item.sizeHint()
            size = QSize(min(hint.width(), area.width()), hint.height())
            if used and used + self._spacing + size.width() > area.width():
                stretch = lines[-1][-1:] if lines[-1][-1][0].spacerItem() is not None else []
                lines.append(stretch)  # a stretch just before the break goes along with what it pushes
                del lines[-2][len(lines[-2]) - len(stretch) :]
                used = 0
            used += (self._spacing if used else 0) + size.width()
            lines[-1].append((item, size))
        y = area.y()
        for line in lines:
            shown = [(item, size) for item, size in line if item.spacerItem() is None]
            if not shown:
                continue
            room = area.width() - sum(size.width() for _, size in shown) - self._spacing * (len(shown) - 1)
            x, height = area.x(), max(size.height() for _, size in shown)
            for item, size in line:
                if item.spacerItem() is not None:
                    x += max(room, 0)
                    room = 0  # only the first stretch of a line takes the room
                    continue
                if move:
                    item.setGeometry(QRect(QPoint(x, y), size))
                x += size.width() + self._spacing
            y += height + self._spacing
        if y == area.y():
            return margins.top() + margins.bottom()
        return y - self._spacing - rect.y() + margins.bottom()
