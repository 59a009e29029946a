"""Where the conversation is scrolled: at the bottom while the user follows the stream, and, while they
read above it, still on what they read when turns are drawn above it (or the column changes below).

A reopened chat is first painted once laid out and scrolled to its end, never at its top first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QWidget

FOLLOW_SLACK: Final = 24
"""Within this many pixels of the bottom the user follows the stream."""
REVEAL_AT_MOST_MS: Final = 100
"""A reopened chat is painted this long after it is drawn at the latest (one that fits changes no range)."""


class ScrollKeeper(QObject):
    """Keeps `area` at the bottom while it follows, and what is on screen in place while it does not."""

    def __init__(
        self,
        area: QScrollArea,
        column: QWidget,
        rows: Callable[[], Sequence[QWidget]],
        scrolled: Callable[[int], object],
    ) -> None:
        """`column` is what `area` scrolls, `rows` its widgets in order; `scrolled` hears each new position."""
        super().__init__(area)
        self._area = area
        self._column = column
        self._rows = rows
        self._scrolled = scrolled
        self.following = True
        """The user is at the bottom, following the stream."""
        self._anchor: tuple[QWidget, int, int] | None = None
        """What stays where it is on screen: the widget, how far below the screen's top it is, and where
        it was in the column when that was measured."""
        bar = area.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range)

    def reset(self) -> None:
        """A new conversation: at its bottom, with a scroll bar once it needs one."""
        self.following = True
        self._anchor = None
        self._area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def follow(self) -> None:
        """The user sent a message: to the end, following the turn it starts."""
        self.following = True
        self._anchor = None
        bar = self._area.verticalScrollBar()
        bar.setValue(bar.maximum())

    def hold_what_is_read(self) -> None:
        """Turns are about to be drawn above: the widget at the top of the screen stays where it is.

        One already held (the slice before, or the user's scroll since) stays the one: it was measured when
        laid out, while the rows the slice before added may not be yet, and choosing again among those
        would keep the wrong row in place once they take their height."""
        if self._anchor is not None and not self.following:
            return
        value = self._area.verticalScrollBar().value()
        self._anchor = next(
            ((w, w.y() - value, w.y()) for w in self._rows() if w.isVisible() and w.geometry().bottom() >= value),
            None,
        )

    def forget(self, gone: set[QWidget]) -> None:
        """`gone` leave the column."""
        if self._anchor is not None and self._anchor[0] in gone:
            self._anchor = None

    def reveal_at_end(self) -> None:
        """A reopened chat was drawn: painted first once laid out, at its end."""
        self.following = True
        self._column.setUpdatesEnabled(False)
        QTimer.singleShot(REVEAL_AT_MOST_MS, self, self._reveal)

    def _reveal(self) -> None:
        inner, bar = self._column, self._area.verticalScrollBar()
        if not inner.updatesEnabled():
            if self.following:
                bar.setValue(bar.maximum())
            inner.setUpdatesEnabled(True)

    def _on_scrolled(self, value: int) -> None:
        self.following = value >= self._area.verticalScrollBar().maximum() - FOLLOW_SLACK
        if not self._hold() and self._anchor is not None:  # the user scrolled: what they read now stays
            widget, _offset, y = self._anchor
            self._anchor = (widget, y - value, y)
        self._scrolled(value)

    def _on_range(self, _minimum: int, maximum: int) -> None:
        always = Qt.ScrollBarPolicy.ScrollBarAlwaysOn
        if maximum > 0 and self._area.verticalScrollBarPolicy() != always and self._rows():
            # From now on the bar stays, so the column keeps one width: while it could come and go, every
            # change near the bottom laid out all the drawn turns at two widths (10 ms more per turn's end).
            # Not for an empty chat: its card overflows a moment while a window is resized, and a bar kept
            # for good would then show with nothing to scroll. (Setting it lays the area out again.)
            self._area.setVerticalScrollBarPolicy(always)
        if maximum > 0 and not self._column.updatesEnabled():
            self._reveal()  # a reopened chat, laid out
        elif self.following:
            self._area.verticalScrollBar().setValue(maximum)  # now, not after a paint at the old end
        else:
            self._hold()

    def _hold(self) -> bool:
        """The column moved what the user reads: scroll by as much, so it stays put on screen."""
        if self._anchor is None or self.following or (y := self._anchor[0].y()) == self._anchor[2]:
            return False
        widget, offset, _y = self._anchor
        self._anchor = (widget, offset, y)
        self._area.verticalScrollBar().setValue(y - offset)
        return True
