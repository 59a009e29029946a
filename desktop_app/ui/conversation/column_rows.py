"""The conversation's column and where its rows go.

The rows sit between fixed ones: an empty chat's card and hint above them, the running turn's status
line below. New rows go above the status line, or, while older turns are drawn, above a mark at the top.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop_app.qt_kit.layout_widgets import discard_widgets, widgets_in
from desktop_app.qt_kit.theme import muted
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.conversation.reading_column import SurfaceColumn
from desktop_app.ui.conversation.turn_status import TurnStatus


class ColumnLayout(QVBoxLayout):
    """The column's rows, each always at its full height.

    A row shown or grown (a new message, a card, a streamed chunk) lays the column out at once, before
    the scroll area has made the column taller: a plain box layout would squeeze every row above to fit
    the old height, and then stretch them back a moment later (every row moved and resized twice, each
    time, in a long chat). Laid out at the height the rows need, the rows above stay where they are and
    the new one reaches below the column's edge until the column grows, in the same pass, before a paint.
    """

    def setGeometry(self, rect: QRect) -> None:
        # What the scroll area will give the column: the rows' height for this width (or, when no row's
        # height depends on its width, their minimum).
        need = max(self.totalHeightForWidth(rect.width()), self.totalMinimumSize().height())
        super().setGeometry(rect if rect.height() >= need else QRect(rect.x(), rect.y(), rect.width(), need))


class ColumnRows:
    """The column's layout: its fixed rows, where the next row goes, and the rows of the conversation."""

    def __init__(self) -> None:
        self.widget = SurfaceColumn()
        self.widget.setObjectName("conversationColumn")
        self.layout = ColumnLayout(self.widget)
        self.layout.setContentsMargins(SPACE.xl, SPACE.l, SPACE.xl, SPACE.l)
        self.layout.setSpacing(SPACE.l)
        self.layout.addStretch(1)
        self._tail: QWidget | None = None
        """What new rows go above: the turn's status line, or the top of what is drawn while older turns are."""
        self.empty_hint = QLabel(
            "Ask anything. The model sees a catalog of your servers' resources and prompts and reads what"
            " it needs. Drag resources here to attach them; Ctrl+K opens the prompt palette."
        )
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        muted(self.empty_hint, f"padding: {SPACE.m}px {SPACE.xxl}px;")  # a small window keeps the offer in view
        self.empty_card: QWidget | None = None
        """What an empty conversation offers above the hint (the "Choose a model" card), if anything."""
        self.turn_status = TurnStatus()
        """The last line while a turn runs: what it waits for (the chat controller says what)."""
        self.layout.insertWidget(0, self.turn_status)
        self.add(self.empty_hint)

    def _fixtures(self) -> tuple[QWidget, ...]:
        """What the column keeps through `clear()`: the empty conversation's card and hint, the turn's status."""
        return tuple(w for w in (self.empty_card, self.empty_hint, self.turn_status) if w is not None)

    @property
    def is_empty(self) -> bool:
        """Nothing but the empty conversation's hint (and card) is shown."""
        return self.layout.count() - 1 == len(self._fixtures())

    def set_empty_card(self, card: QWidget | None) -> None:
        """Offer `card` above the hint while the conversation is empty (None: offer nothing)."""
        if self.empty_card is card:
            return
        if self.empty_card is not None:
            self.empty_card.hide()
            self.layout.removeWidget(self.empty_card)
            self.empty_card = None
        empty = self.is_empty
        self.empty_card = card
        if card is not None:
            self.layout.insertWidget(self.layout.indexOf(self.empty_hint), card)
            card.setVisible(empty)

    def _hide_empty(self) -> None:
        self.empty_hint.hide()
        if self.empty_card is not None:
            self.empty_card.hide()

    def add(self, widget: QWidget, *, compact: bool = False, right: bool = False) -> QWidget:
        """Put `widget` where the next row goes; `compact` ones keep their own width, left-aligned, and
        `right` ones theirs, right-aligned."""
        if widget is not self.empty_hint:
            self._hide_empty()
        alignment = (
            Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft if compact else Qt.AlignmentFlag(0)
        )
        self.layout.insertWidget(self.next_row(), widget, 0, alignment)
        return widget

    def add_after(self, anchor: QWidget, widget: QWidget) -> QWidget:
        """Put `widget` right below the row `anchor`."""
        self._hide_empty()
        self.layout.insertWidget(self.layout.indexOf(anchor) + 1, widget)
        return widget

    def next_row(self) -> int:
        """Where in the layout the next row goes."""
        return self.layout.indexOf(self._tail or self.turn_status)

    def top(self) -> int:
        """Where the conversation's first row is in the layout (below the empty chat's card and hint)."""
        return self.layout.indexOf(self.empty_hint) + 1

    def end(self) -> int:
        """Where the conversation's rows end in the layout (at the turn's status line)."""
        return self.layout.indexOf(self.turn_status)

    def rows(self) -> list[QWidget]:
        """The conversation's rows, in order."""
        return widgets_in(self.layout, self.top(), self.end())

    @contextmanager
    def adding_at_top(self) -> Iterator[None]:
        """New rows go at the top of the conversation, above what is shown, until the block ends."""
        tail = QWidget()
        tail.hide()  # takes no room
        self.layout.insertWidget(self.top(), tail)
        self._tail = tail
        try:
            yield
        finally:
            self._tail = None
            self.layout.removeWidget(tail)
            tail.deleteLater()

    def clear(self) -> None:
        """Delete every row but the fixed ones."""
        discard_widgets(self.layout, keep=self._fixtures())
        self._tail = None

    def show_empty(self) -> None:
        """An empty conversation: its hint and card, no turn's status."""
        self.turn_status.done()
        self.empty_hint.show()
        if self.empty_card is not None:
            self.empty_card.show()
