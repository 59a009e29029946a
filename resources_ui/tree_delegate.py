"""The resource tree's rows: a name over a quieter line, so the tree reads in a narrow dock.

A resource shows its name, then its URI, type and size on a second line elided in the middle
(URIs that share a long prefix stay told apart); a server shows its name with its state as a
coloured badge, then what it offers. The model keeps its four columns (filtering, copying and
tests use them); the view shows only the first and draws the others into it.

The tree repaints on every keystroke of the filter, so a row is painted from one `RowLook`
asked of the model in one call, not through `initStyleOption` and `data()` (a call into Python
per role and column), and its elided lines are kept between paints as laid-out `QStaticText`
(drawn several times faster than `drawText` lays them out again).
"""

from __future__ import annotations

from typing import Final, Protocol

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QStaticText
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from desktop_app.qt_kit.status_icons import STATE_TOKENS
from desktop_app.qt_kit.theme import tokens
from resources_ui.tree_model import RowLook

Index = QModelIndex | QPersistentModelIndex

PAD: Final = 3
"""Vertical padding above and below the two lines."""
GAP: Final = 6
"""Between the icon and the text, and between the name and a badge."""
_LINES_KEPT: Final = 2048
"""Laid-out lines remembered (a few screenfuls of rows at the widths seen lately)."""


class RowLooks(Protocol):
    """The model side: what a row shows, in one call (`ResourceFilterProxy`, `ResourceTreeModel`)."""

    def row_look(self, index: Index) -> RowLook | None: ...


class _Fonts:
    """The fonts and metrics for one view font: regular, bold (server names), small (second line)."""

    def __init__(self, font: QFont) -> None:
        self.regular = QFont(font)
        self.regular.setBold(False)
        self.bold = QFont(font)
        self.bold.setBold(True)
        self.small = QFont(self.regular)
        self.small.setPointSizeF(max(font.pointSizeF() * 0.88, 7.0))
        self.regular_metrics = QFontMetrics(self.regular)
        self.bold_metrics = QFontMetrics(self.bold)
        self.small_metrics = QFontMetrics(self.small)


class ResourceRowDelegate(QStyledItemDelegate):
    """Paints the name column as two lines; see the module docstring."""

    def __init__(self, looks: RowLooks, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._looks = looks
        self._fonts: dict[str, _Fonts] = {}
        self._lines: dict[tuple[str, int, int], tuple[str, QStaticText]] = {}

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        base = super().sizeHint(option, index)
        fonts = self._fonts_for(option.font)
        height = fonts.bold_metrics.height() + fonts.small_metrics.height() + 2 * PAD
        return QSize(base.width(), max(height, base.height()))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        look = self._looks.row_look(index)
        if look is None:
            return
        widget: QWidget | None = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        # The view's option has no text or icon yet: the style draws only background and selection.
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)

        rect: QRect = option.rect
        state = option.state
        selected = bool(state & QStyle.StateFlag.State_Selected)
        enabled = bool(state & QStyle.StateFlag.State_Enabled) and (look.live or selected)
        group = QPalette.ColorGroup.Normal if enabled else QPalette.ColorGroup.Disabled
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        palette: QPalette = option.palette
        main_colour = palette.color(group, role)  # a server that is down: its rows greyed
        theme = tokens(widget)
        quiet_colour = QColor(main_colour)
        quiet_colour.setAlphaF(0.62)
        if enabled and not selected:  # the second line in the theme's muted text, readable on the tree
            quiet_colour = QColor(theme.muted)

        icon_size: QSize = option.decorationSize
        left = rect.left() + 2
        if not look.icon.isNull():
            top = rect.top() + (rect.height() - icon_size.height()) // 2
            look.icon.paint(painter, QRect(left, top, icon_size.width(), icon_size.height()))
            left += icon_size.width() + GAP
        text_width = max(rect.right() - left - 2, 0)
        fonts = self._fonts_for(option.font)
        server = look.state is not None
        first_font, first = (fonts.bold, fonts.bold_metrics) if server else (fonts.regular, fonts.regular_metrics)
        second = fonts.small_metrics
        line1 = QRect(left, rect.top() + PAD, text_width, first.height())
        line2 = QRect(left, line1.bottom() + 1, text_width, second.height())

        painter.save()
        badge = look.state.value.replace("_", " ") if look.state is not None else ""
        if badge:
            line1.setWidth(max(text_width - second.horizontalAdvance(badge) - 12 - GAP, 0))
        painter.setFont(first_font)
        painter.setPen(main_colour)
        shown, text = self._line(first, first_font, look.name, line1.width(), Qt.TextElideMode.ElideRight)
        painter.drawStaticText(QPointF(line1.topLeft()), text)
        painter.setFont(fonts.small)
        if look.state is not None:
            colour = QColor(theme.colours()[STATE_TOKENS[look.state]])
            self._paint_badge(painter, second, badge, colour, left + first.horizontalAdvance(shown) + GAP, line1)
        painter.setPen(quiet_colour)
        _, text = self._line(second, fonts.small, look.detail, line2.width(), Qt.TextElideMode.ElideMiddle)
        painter.drawStaticText(QPointF(line2.topLeft()), text)
        painter.restore()

    def _fonts_for(self, font: QFont) -> _Fonts:
        key = font.key()
        fonts = self._fonts.get(key)
        if fonts is None:
            fonts = self._fonts[key] = _Fonts(font)
            self._lines.clear()
        return fonts

    def _line(
        self, metrics: QFontMetrics, font: QFont, text: str, width: int, mode: Qt.TextElideMode
    ) -> tuple[str, QStaticText]:
        """`text` elided to `width` and laid out in `font`, remembered: a keystroke repaints mostly
        rows painted before. The metrics are the kept ones of `_Fonts` (one font and elide mode
        each), so they name the font."""
        key = (text, width, id(metrics))
        line = self._lines.get(key)
        if line is None:
            if len(self._lines) >= _LINES_KEPT:
                self._lines.clear()
            shown = metrics.elidedText(text, mode, width)
            static = QStaticText(shown)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(font=font)
            line = self._lines[key] = (shown, static)
        return line

    @staticmethod
    def _paint_badge(painter: QPainter, metrics: QFontMetrics, text: str, colour: QColor, x: int, line: QRect) -> None:
        width = metrics.horizontalAdvance(text) + 12
        height = metrics.height() + 2
        box = QRect(x, line.top() + (line.height() - height) // 2, width, height)
        fill = QColor(colour)
        fill.setAlphaF(0.16)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(box, height / 2, height / 2)
        painter.setPen(colour)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
