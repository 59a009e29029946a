"""Which turns the conversation draws: the newest as widgets, the oldest folded out and drawn again
from the stored chat when the user scrolls up to them.

A long chat keeps about `DRAWN_TURNS` turns as widgets. While the user follows the stream at the
bottom, a turn finishing folds the oldest ones beyond that out: their widgets are deleted (an MCP
App view in one of their cards is closed by the app views, which keep a still of it in the chat, shown
when that turn is drawn again, as in a reopened chat). Scrolling near the top of
what is drawn draws the turns above from the stored chat (`replay_history` over `turn_spans`, as a
reopened chat's), keeping what is on screen where it is. A reopened chat shows its last screen first,
then older turns between paints up to `DRAWN_TURNS`, the rest on the way up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from desktop_app.ui.conversation.history_replay import turn_spans

Stored = tuple[list[dict[str, Any]], Sequence[tuple[int, dict[str, Any]]]]
"""A chat's messages and its kept events, as (message position, event dict)."""

DRAWN_TURNS: Final = 10
"""Turns kept as widgets while the user follows the stream (a long answer's turn is a few screens). Each
turn's end lays out every drawn turn: with 20 that held the window ~30 ms of CPU, with 10 under 22."""
FOLD_STEP: Final = 2
"""At most this many turns are folded out at a time, a pause between (deleting widgets takes time)."""
LAST_SCREEN: Final = 20
"""A reopened chat's last messages drawn before it is first painted (its last screen, and more)."""
OLDER_SLICE: Final = 4
"""Older turns are drawn about this many messages at a time (a turn or so: two took ~30 ms of CPU)…"""
OLDER_FIRST_MS: Final = 250
"""…a reopened chat's first slice once its last screen has surely been painted…"""
OLDER_PAUSE_MS: Final = 10
"""…and the next ones after a short pause, so the window paints and scrolls between them."""


class TurnColumn(Protocol):
    """The conversation view, as its older turns need it."""

    @property
    def following(self) -> bool: ...

    def fold_above(self, head: QWidget) -> None: ...

    def draw_above(self, stored: Stored, span: tuple[int, int]) -> None: ...


class OlderTurns(QObject):
    """The turns drawn (where each begins) and how far back the chat is folded out."""

    drawn = Signal()
    """Older turns were drawn above (their answers may want ledger links)."""

    def __init__(self, column: TurnColumn, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._column = column
        self.source: Callable[[], Stored] | None = None
        """The stored chat on screen (its messages grow as turns run); None: only a reopened one."""
        self._reopened: Stored | None = None
        self.turns: list[tuple[int, QWidget]] = []
        """Each drawn turn's message position and its first widget, in order."""
        self.folded_to = 0
        """The position of the first message drawn: the ones before it are not (0: the chat is whole)."""
        self._head: QWidget | None = None
        """The first widget of the turn about to be tracked, when it is not its message (a replaced part)."""
        self._slot: int | None = None
        """Where in `turns` new ones go while older turns are drawn (None: at the end)."""
        self._filling = False
        """A reopened chat: older turns are drawn between paints until `DRAWN_TURNS` are."""
        self._draw_timer = QTimer(self, singleShot=True)
        self._draw_timer.timeout.connect(self.draw_next)
        self._fold_timer = QTimer(self, singleShot=True)
        self._fold_timer.timeout.connect(self.fold)

    @property
    def drawing(self) -> bool:
        """Older turns are about to be drawn."""
        return self._draw_timer.isActive()

    def stored(self) -> Stored | None:
        """The chat to draw older turns from."""
        return self.source() if self.source is not None else self._reopened

    # -- the turns drawn ----------------------------------------------------------------------

    def turn_started(self, position: int, message: QWidget) -> None:
        """The user's message at `position` was drawn: a turn begins (at a replaced part before it, if any)."""
        head, self._head = self._head or message, None
        if self._slot is None:
            self.turns.append((position, head))
        else:
            self.turns.insert(self._slot, (position, head))
            self._slot += 1

    def replaced_part(self, note: QWidget) -> None:
        """A replaced part, headed by `note`, was drawn before the next turn's message: that turn begins there."""
        self._head = self._head or note

    def replacing(self, position: int) -> None:
        """The turn at `position` is replaced: its first widget heads the one sent instead."""
        kept = [turn for turn in self.turns if turn[0] < position]
        replaced = self.turns[len(kept)] if len(kept) < len(self.turns) else None
        self.turns = kept
        self._head = replaced[1] if replaced is not None and replaced[0] == position else None

    def clear(self) -> None:
        self._draw_timer.stop()
        self._fold_timer.stop()
        self.turns.clear()
        self.folded_to = 0
        self._head = self._slot = None
        self._reopened = None
        self._filling = False

    # -- a reopened chat ----------------------------------------------------------------------

    def reopened(self, stored: Stored, drawn_from: int) -> None:
        """A chat was reopened with the messages from `drawn_from` on drawn: older turns follow."""
        self._reopened = stored
        self.folded_to = drawn_from
        self._filling = drawn_from > 0
        if self._filling:
            self._draw_timer.start(OLDER_FIRST_MS)

    # -- folding out, drawing again -------------------------------------------------------------

    def fold_soon(self) -> None:
        """A turn ended: fold out the oldest turns beyond `DRAWN_TURNS` once the window is idle."""
        if len(self.turns) > DRAWN_TURNS:
            self._fold_timer.start(0)

    def fold(self) -> None:
        """Fold out up to `FOLD_STEP` of the oldest turns, only while the user follows at the bottom
        (never while they read older turns) and the chat can draw them again."""
        extra = len(self.turns) - DRAWN_TURNS
        if extra <= 0 or not self._column.following or self.stored() is None or self._slot is not None:
            return
        count = min(extra, FOLD_STEP)
        position, head = self.turns[count]
        self._column.fold_above(head)
        del self.turns[:count]
        self.folded_to = position
        if extra > count:
            self._fold_timer.start(OLDER_PAUSE_MS)

    def scrolled(self, value: int, screen: int) -> None:
        """The column scrolled to `value`: within a screen of the top, the turns above are drawn next; not
        while the user follows at the bottom (a fold that left less than a screen is not a scroll up)."""
        if not self._column.following:
            self.wheeled_up(value, screen)

    def wheeled_up(self, value: int, screen: int) -> None:
        """The user asked for what is above (the wheel turned up at `value`): drawn next, within a screen of the top."""
        if value < screen and self.folded_to > 0 and not self._draw_timer.isActive():
            self._draw_timer.start(0)

    def draw_next(self) -> None:
        """Draw the next older span above what is shown (the column keeps what is on screen in place)."""
        stored = self.stored()
        if stored is None or self.folded_to <= 0:
            self._filling = False
            return
        messages, _events = stored
        end = min(self.folded_to, len(messages))
        first = turn_spans(messages[:end], OLDER_SLICE, OLDER_SLICE)[0][0]
        self._slot = 0
        try:
            self._column.draw_above(stored, (first, end))
        finally:
            self._slot = None
        self.folded_to = first
        if self._filling and first > 0 and len(self.turns) < DRAWN_TURNS:
            self._draw_timer.start(OLDER_PAUSE_MS)
            return
        self._filling = False
        self.drawn.emit()
