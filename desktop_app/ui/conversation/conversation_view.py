"""The scrolling conversation: renders a turn's events as they arrive, or a stored one as it happened.

A long one draws only its newest turns; the older ones are drawn again when scrolled to (`older_turns`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QWidget

from desktop_app.core.chat.events import (
    AppToolRecord,
    AppToolResult,
    AppViewRecord,
    ChatError,
    ChatEvent,
    HistoryRecord,
    PromptInjected,
    QuestionRecord,
    Replaced,
    ResourceRead,
    TextDelta,
    ToolCallStarted,
    ToolDecision,
    ToolProgress,
    ToolResult,
    TurnFinished,
)
from desktop_app.core.chat.history_search import message_text
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.layout_widgets import widgets_in
from desktop_app.ui.conversation.call_cards import CardPanels, show_on_card
from desktop_app.ui.conversation.column_rows import ColumnRows
from desktop_app.ui.conversation.first_steps import EmptyChat, FirstSteps
from desktop_app.ui.conversation.history_replay import replay_history, turn_spans
from desktop_app.ui.conversation.message_bubble import MessageBubble, Role
from desktop_app.ui.conversation.older_turns import LAST_SCREEN, OLDER_SLICE, OlderTurns, Stored
from desktop_app.ui.conversation.reading_column import FocusReveal, centre_column
from desktop_app.ui.conversation.record_cards import AppStill, record_widget
from desktop_app.ui.conversation.scroll_keeper import ScrollKeeper
from desktop_app.ui.conversation.tool_card import ResourceChip, ToolCard
from desktop_app.ui.conversation.turn_offers import STOPPED, TurnOffers, mark_replaced_rows


class ConversationView(QScrollArea):
    """Messages, tool cards and chips in order; follows the stream while the user is at the bottom."""

    open_content = Signal(object)  # ResourceContent
    open_resource = Signal(str, str)  # uri, server
    web_link_requested = Signal(str)  # a web link clicked in a message
    history_drawn = Signal()  # older turns were drawn above what was shown (a reopened chat's, or scrolled to)
    card_folded = Signal(object)  # ToolCard: folded out of a long chat, deleted next (its app view is let go)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversation")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._column = ColumnRows()
        self._inner, self._layout = self._column.widget, self._column.layout
        self.setWidget(self._inner)
        self._assistant: MessageBubble | None = None
        self._cards: dict[str, ToolCard] = {}
        self._below: dict[str, list[QWidget]] = {}
        self._panels = CardPanels(lambda card: QTimer.singleShot(0, card, lambda: self.ensureWidgetVisible(card, 0, 0)))
        self._user_bubbles: dict[int, MessageBubble] = {}
        """The user's messages shown, by their position in the conversation's messages."""
        self._messages: list[MessageBubble] = []
        """Every message shown, in order: kept, so a turn's end never searches the whole chat's widgets."""
        self._offers = TurnOffers()
        self.tool_icon: Callable[[str, str], QIcon | None] = lambda _server, _tool: None
        """A tool card's icon (the tool's own, else its server's), as the chat controller finds it in the catalog."""
        self._message_slot: int | None = None
        """Where in `_messages` new ones go while older turns are drawn (None: at the end)."""
        self.older = OlderTurns(self, self)
        """The turns drawn and folded out; the chat controller gives it the stored chat (`source`)."""
        self.older.drawn.connect(self.history_drawn)
        self._scrolling = ScrollKeeper(
            self, self._inner, self._column.rows, lambda value: self.older.scrolled(value, self._screen())
        )
        self.turn_status = self._column.turn_status
        """The last line while a turn runs: what it waits for (the chat controller says what)."""
        self._focus = FocusReveal(self._inner)
        self.first_steps = FirstSteps()
        """What an empty chat suggests trying with what is connected (`first_steps_offer` fills it)."""
        self._empty_chat = EmptyChat(self.first_steps)
        self._column.set_empty_card(self._empty_chat)  # shown while the chat has no message

    # -- building blocks -------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """Nothing but the empty conversation's hint (and card) is shown."""
        return self._column.is_empty

    def set_empty_card(self, card: QWidget | None) -> None:
        """Offer `card` above the first steps while the conversation is empty (None: offer nothing)."""
        self._empty_chat.set_card(card)

    def add_widget(self, widget: QWidget, *, compact: bool = False, right: bool = False) -> QWidget:
        """Append below the last item; `compact` items (chips) keep their own width, left-aligned, and
        `right` ones (the user's messages) theirs, right-aligned."""
        return self._column.add(widget, compact=compact, right=right)

    def add_below(self, call_id: str, widget: QWidget) -> QWidget:
        """Put `widget` under the tool card of `call_id` (after what is already there for that call).

        Questions a server asks while its tool runs belong to that call, not to the end of the
        stream; with no such card the widget is appended.
        """
        card = self._cards.get(call_id)
        if card is None or self._layout.indexOf(card) < 0:
            return self.add_widget(widget)
        below = [w for w in self._below.get(call_id, []) if self._layout.indexOf(w) >= 0]
        self._below[call_id] = [*below, self._column.add_after(below[-1] if below else card, widget)]
        return widget

    def embed(self, call_id: str, panel: QWidget) -> None:
        """Put an approval panel inside the card of `call_id`, now or as soon as that card arrives."""
        self._panels.embed(call_id, self._cards.get(call_id), panel)

    def add_message(self, role: Role, text: str) -> MessageBubble:
        self._assistant = None
        bubble = MessageBubble(role, text)
        bubble.web_link_requested.connect(self.web_link_requested)
        self.add_widget(bubble, right=role == "user")
        if self._message_slot is None:
            self._messages.append(bubble)
        else:
            self._messages.insert(self._message_slot, bubble)
            self._message_slot += 1
        return bubble

    def messages(self) -> list[MessageBubble]:
        """The messages shown, in order."""
        return list(self._messages)

    def add_user_message(
        self, text: str, refs: Sequence[ResourceRef] = (), *, position: int | None = None
    ) -> MessageBubble:
        """The user's message, with what they attached as chips that open the resource; `position` is
        where it is in the conversation's messages (for Edit, Retry and Regenerate)."""
        bubble = self.add_message("user", text)
        for chip in bubble.add_attachments(refs) if refs else []:
            chip.clicked.connect(lambda ref: self.open_resource.emit(ref.uri, ref.server))
        if position is not None:
            self._user_bubbles[position] = bubble
            self.older.turn_started(position, bubble)
        return bubble

    def clear(self) -> None:
        self._column.clear()
        self._assistant = None
        self._cards.clear()
        self._below.clear()
        self._panels.clear()
        self._user_bubbles.clear()
        self._messages.clear()
        self._offers.forget()
        self.older.clear()
        self._scrolling.reset()
        self._column.show_empty()

    def show_history(self, messages: list[dict[str, Any]], events: Sequence[tuple[int, dict[str, Any]]] = ()) -> None:
        """Render a stored conversation as it happened (`history_replay`); its user messages are tracked
        by position, for Edit, Retry and Regenerate. It shows its last screen at once, first painted at
        its end; older turns are drawn above, a slice between paints (`history_drawn` then)."""
        self.clear()
        last = turn_spans(messages, LAST_SCREEN, OLDER_SLICE)[0]
        replay_history(self, messages, events, track=True, span=last)
        self.end_assistant()
        self.older.reopened((messages, events), last[0])
        self._scrolling.reveal_at_end()

    @property
    def following(self) -> bool:
        """The user is at the bottom, following the stream."""
        return self._scrolling.following

    def follow(self) -> None:
        """Go to the end and follow the stream (the user sent a message, wherever they had scrolled)."""
        self._scrolling.follow()

    def _screen(self) -> int:
        return self.viewport().height()

    def draw_above(self, stored: Stored, span: tuple[int, int]) -> None:
        """Draw `span` of the stored chat above what is shown; what is on screen stays where it is."""
        self._scrolling.hold_what_is_read()
        live = self._assistant
        with self._column.adding_at_top():
            self._assistant, self._message_slot = None, 0
            try:
                replay_history(self, *stored, track=True, span=span)
                self.end_assistant()
            finally:
                self._assistant, self._message_slot = live, None

    def fold_above(self, head: QWidget) -> None:
        """Delete every widget above `head` (the oldest turns), and forget them."""
        folded: set[QWidget] = set()
        for widget in itertools.takewhile(lambda row: row is not head, self._column.rows()):
            self._layout.removeWidget(widget)
            folded.add(widget)
            if isinstance(widget, ToolCard):
                self.card_folded.emit(widget)
                if self._cards.get(widget.call_id) is widget:
                    del self._cards[widget.call_id]
                    self._below.pop(widget.call_id, None)
            if (focus := QApplication.focusWidget()) is not None and widget.isAncestorOf(focus):
                focus.clearFocus()  # else the focus moves on, and the column scrolls up to it
            widget.hide()
            widget.deleteLater()
        self._messages = [b for b in self._messages if b not in folded]
        self._user_bubbles = {p: b for p, b in self._user_bubbles.items() if b not in folded}
        self._scrolling.forget(folded)

    def _icon_for(self, event: ToolCallStarted) -> QIcon | None:
        return self.tool_icon(event.server, event.tool) if event.server and event.tool else None

    def add_card(self, card: ToolCard) -> ToolCard:
        """Append a tool call's card, found by its call from now on."""
        card.open_content.connect(self.open_content)
        self._cards[card.call_id] = card
        self.add_widget(card)
        return card

    # -- records and replaced turns ---------------------------------------------------------

    def apply_record(self, record: HistoryRecord) -> None:
        """Show what a chat keeps besides its turn's events, under the tool call it belongs to."""
        if isinstance(record, QuestionRecord | AppToolRecord | AppToolResult):
            widget = record_widget(record)
            if record.call_id is not None and record.call_id in self._cards:
                self.add_below(record.call_id, widget)
            else:
                self.add_widget(widget)
        elif isinstance(record, AppViewRecord) and (card := self._cards.get(record.call_id)) is not None:
            card.show_still(AppStill(record))
        elif isinstance(record, Replaced):
            self.end_assistant()
            start = self._column.next_row()
            replay_history(self, list(record.messages), record.events, track=False)
            self.end_assistant()
            self._mark_from(start, record.reason)

    def mark_replaced(self, position: int, reason: str) -> None:
        """The user message at `position` and all after it were replaced: greyed, and saying so."""
        bubble = self._user_bubbles.get(position)
        start = self._layout.indexOf(bubble) if bubble is not None else -1
        self.older.replacing(position)
        for tracked in [p for p in self._user_bubbles if p >= position]:
            del self._user_bubbles[tracked]
        self.end_assistant()
        if start >= 0:
            self._mark_from(start, reason)

    def _mark_from(self, start: int, reason: str) -> None:
        end = self._column.next_row()
        self.older.replaced_part(mark_replaced_rows(self._layout, start, end, reason))

    def offer_actions(self, position: int, *, edit: Callable[[], object] | None, again: Callable[[], object]) -> None:
        """After a turn: Edit on the user's message at `position`, then Retry or Regenerate after it
        (`turn_offers`); earlier offers go."""
        bubble = self._user_bubbles.get(position)
        if bubble is None:
            self._offers.clear()
            return
        rows = widgets_in(self._layout, self._layout.indexOf(bubble) + 1, self._column.end())
        after = [row for row in rows if isinstance(row, MessageBubble)]
        self._offers.offer(bubble, after, edit=edit, again=again)

    def clear_actions(self) -> None:
        self._offers.clear()

    # -- events ----------------------------------------------------------------------------

    def apply(self, event: ChatEvent) -> None:
        """Show one engine event; unknown kinds (usage) are for the status bar, not here."""
        if isinstance(event, TextDelta):
            if self._assistant is None:
                self._assistant = self.add_message("assistant", "")
            self._assistant.append(event.text)
        elif isinstance(event, ToolCallStarted):
            self.end_assistant()
            if event.server is not None and event.tool is not None:
                self._panels.card_drawn(self.add_card(ToolCard.for_call(event, self._icon_for(event))))
        elif isinstance(event, ToolDecision | ToolProgress | ToolResult):
            if (card := self._cards.get(event.call_id)) is not None:
                show_on_card(card, event)
        elif isinstance(event, ResourceRead):
            chip = ResourceChip(event.uri, event.total_size or None, event.truncated)
            chip.clicked.connect(lambda: self.open_resource.emit(event.uri, event.server))
            self.add_widget(chip, compact=True)
        elif isinstance(event, PromptInjected):
            self.end_assistant()
            lines = [f"**{event.name}** from {event.server}:"]
            lines += [f"- *{m.get('role')}*: {message_text(m)[:400]}" for m in event.messages]
            self.add_message("prompt", "\n".join(lines))
        elif isinstance(event, ChatError):
            self.end_assistant()
            self.add_message("notice", event.message)
        elif isinstance(event, TurnFinished):
            self.end_assistant()
            self.older.fold_soon()
            if event.reason == "max_iterations":
                self.add_message("notice", event.text)
            elif event.reason == "cancelled":
                self.add_message("info", STOPPED)

    def card(self, call_id: str) -> ToolCard | None:
        return self._cards.get(call_id)

    def end_assistant(self) -> None:
        if self._assistant is not None:
            self._assistant.flush()
        self._assistant = None

    def follow_theme(self) -> None:
        """A new theme: the messages' own colours follow (their style sheets keep the palette from them)."""
        for bubble in self._messages:
            bubble.follow_theme()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        centre_column(self._layout, self.viewport().width())

    def wheelEvent(self, event: QWheelEvent) -> None:
        super().wheelEvent(event)
        if event.angleDelta().y() > 0:  # at the top, too, or in a chat shorter than the screen
            self.older.wheeled_up(self.verticalScrollBar().value(), self._screen())
