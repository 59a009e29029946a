"""The resource tree's rows: a name over a quieter line, so the tree reads in a narrow dock.

A resource shows its name, then its URI, type and size on a second line elided in the middle
(URIs that share a long prefix stay told apart); a server shows its name with its state as a
coloured badge, then what it offers. The model keeps its four columns (filtering, copying and
tests use them); the view shows only the first and draws the others into it.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from desktop_app.core.server_status import ServerState
from resources_ui.status_icons import STATE_COLOURS
from resources_ui.tree_model import SIZE_COLUMN, TYPE_COLUMN, URI_COLUMN

Index = QModelIndex | QPersistentModelIndex

PAD: Final = 3
"""Vertical padding above and below the two lines."""
GAP: Final = 6
"""Between the icon and the text, and between the name and a badge."""


def secondary_text(index: Index) -> str:
    """The second line: URI · type · size for a resource, what it offers for a server."""
    if not index.parent().isValid():
        return str(index.sibling(index.row(), URI_COLUMN).data() or "")
    parts = (index.sibling(index.row(), column).data() for column in (URI_COLUMN, TYPE_COLUMN, SIZE_COLUMN))
    return " · ".join(str(part) for part in parts if part)


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setBold(False)
    small.setPointSizeF(max(font.pointSizeF() * 0.88, 7.0))
    return small


class ResourceRowDelegate(QStyledItemDelegate):
    """Paints the name column as two lines; see the module docstring."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        base = super().sizeHint(option, index)
        height = QFontMetrics(option.font).height() + QFontMetrics(_small(option.font)).height() + 2 * PAD
        return QSize(base.width(), max(height, base.height()))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget: QWidget | None = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        name, opt.text = opt.text, ""
        icon = opt.icon
        opt.icon = type(icon)()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)  # background, selection

        rect: QRect = opt.rect
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (
            QPalette.ColorGroup.Normal if opt.state & QStyle.StateFlag.State_Enabled else QPalette.ColorGroup.Disabled
        )
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        main_colour = opt.palette.color(group, role)
        foreground = index.data(Qt.ItemDataRole.ForegroundRole)
        if not selected and isinstance(foreground, QColor):
            main_colour = foreground
        quiet_colour = QColor(main_colour)
        quiet_colour.setAlphaF(0.62)

        icon_size = opt.decorationSize
        left = rect.left() + 2
        if not icon.isNull():
            top = rect.top() + (rect.height() - icon_size.height()) // 2
            icon.paint(painter, QRect(left, top, icon_size.width(), icon_size.height()))
            left += icon_size.width() + GAP
        text_width = max(rect.right() - left - 2, 0)
        first = QFontMetrics(opt.font)
        small_font = _small(opt.font)
        second = QFontMetrics(small_font)
        line1 = QRect(left, rect.top() + PAD, text_width, first.height())
        line2 = QRect(left, line1.bottom() + 1, text_width, second.height())

        painter.save()
        badge = self._badge(index)
        if badge is not None:
            line1.setWidth(max(text_width - second.horizontalAdvance(badge[0]) - 12 - GAP, 0))
        painter.setFont(opt.font)
        painter.setPen(main_colour)
        shown = first.elidedText(name, Qt.TextElideMode.ElideRight, line1.width())
        painter.drawText(line1, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
        painter.setFont(small_font)
        if badge is not None:
            self._paint_badge(painter, second, badge, left + first.horizontalAdvance(shown) + GAP, line1)
        painter.setPen(quiet_colour)
        detail = second.elidedText(secondary_text(index), Qt.TextElideMode.ElideMiddle, line2.width())
        painter.drawText(line2, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, detail)
        painter.restore()

    @staticmethod
    def _badge(index: Index) -> tuple[str, QColor] | None:
        """A server row's state, as a short word and its colour."""
        if index.parent().isValid():
            return None
        text = str(index.sibling(index.row(), TYPE_COLUMN).data() or "")
        try:
            colour = QColor(STATE_COLOURS[ServerState(text)])
        except ValueError:
            return None
        return text.replace("_", " "), colour

    @staticmethod
    def _paint_badge(painter: QPainter, metrics: QFontMetrics, badge: tuple[str, QColor], x: int, line: QRect) -> None:
        text, colour = badge
        width = metrics.horizontalAdvance(text) + 12
        height = metrics.height() + 2
        box = QRect(x, line.top() + (line.height() - height) // 2, width, height)
        fill = QColor(colour)
        fill.setAlphaF(0.16)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(box, height / 2, height / 2)
        painter.setPen(colour.darker(120))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
