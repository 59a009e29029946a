"""The scrolling conversation: renders a turn's events as they arrive, or a stored one as it happened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from desktop_app.core.chat.events import (
    ChatError,
    ChatEvent,
    PromptInjected,
    ResourceRead,
    TextDelta,
    ToolCallStarted,
    ToolDecision,
    ToolProgress,
    ToolResult,
    TurnFinished,
    event_from_dict,
)
from desktop_app.core.chat.history_repair import INTERRUPTED_RESULT
from desktop_app.core.content import ResourceContent
from desktop_app.ui.conversation.message_bubble import MessageBubble, Role
from desktop_app.ui.conversation.tool_card import CallState, ResourceChip, ToolCard
from resources_ui.drag_payload import ResourceRef


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class ConversationView(QScrollArea):
    """Messages, tool cards and chips in order; follows the stream while the user is at the bottom."""

    open_content = Signal(object)  # ResourceContent
    open_resource = Signal(str, str)  # uri, server
    web_link_requested = Signal(str)  # a web link clicked in a message

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversation")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.setContentsMargins(16, 12, 16, 12)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        self.setWidget(self._inner)
        self._assistant: MessageBubble | None = None
        self._cards: dict[str, ToolCard] = {}
        self._below: dict[str, list[QWidget]] = {}
        self._waiting: dict[str, QWidget] = {}
        """Approval panels that arrived before their call's card (the engine asks as it emits)."""
        self._follow = True
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.verticalScrollBar().rangeChanged.connect(self._on_range)
        self.empty_hint = QLabel(
            "Ask anything. The model sees a catalog of your servers' resources and prompts and reads what"
            " it needs. Drag resources here to attach them; Ctrl+K opens the prompt palette."
        )
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setStyleSheet("color: #8a8f98; padding: 40px;")
        self.empty_card: QWidget | None = None
        """What an empty conversation offers above the hint (the "Choose a model" card), if anything."""
        self.add_widget(self.empty_hint)

    # -- building blocks -------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """Nothing but the empty conversation's hint (and card) is shown."""
        return self._layout.count() - 1 == sum(1 for w in (self.empty_hint, self.empty_card) if w is not None)

    def set_empty_card(self, card: QWidget | None) -> None:
        """Offer `card` above the hint while the conversation is empty (None: offer nothing)."""
        if self.empty_card is card:
            return
        if self.empty_card is not None:
            self.empty_card.hide()
            self._layout.removeWidget(self.empty_card)
            self.empty_card = None
        empty = self.is_empty
        self.empty_card = card
        if card is not None:
            self._layout.insertWidget(self._layout.indexOf(self.empty_hint), card)
            card.setVisible(empty)

    def add_widget(self, widget: QWidget, *, compact: bool = False) -> QWidget:
        """Append below the last item; `compact` items (chips) keep their own width, left-aligned."""
        if widget is not self.empty_hint:
            self.empty_hint.hide()
            if self.empty_card is not None:
                self.empty_card.hide()
        alignment = Qt.AlignmentFlag.AlignLeft if compact else Qt.AlignmentFlag(0)
        self._layout.insertWidget(self._layout.count() - 1, widget, 0, alignment)
        return widget

    def add_below(self, call_id: str, widget: QWidget) -> QWidget:
        """Put `widget` under the tool card of `call_id` (after what is already there for that call).

        Questions a server asks while its tool runs belong to that call, not to the end of the
        stream; with no such card the widget is appended.
        """
        card = self._cards.get(call_id)
        index = self._layout.indexOf(card) if card is not None else -1
        if index < 0:
            return self.add_widget(widget)
        self.empty_hint.hide()
        if self.empty_card is not None:
            self.empty_card.hide()
        below = [w for w in self._below.get(call_id, []) if self._layout.indexOf(w) >= 0]
        anchor: QWidget = below[-1] if below else card  # type: ignore[assignment]
        self._layout.insertWidget(self._layout.indexOf(anchor) + 1, widget)
        self._below[call_id] = [*below, widget]
        return widget

    def embed(self, call_id: str, panel: QWidget) -> None:
        """Put an approval panel inside the card of `call_id`, now or as soon as that card arrives.

        A card that already has a decision or a result belongs to an earlier call that reused
        the id; the panel waits for the new one.
        """
        card = self._cards.get(call_id)
        if card is None or card.settled:
            self._waiting[call_id] = panel
            return
        self._place_panel(card, panel)

    def _place_panel(self, card: ToolCard, panel: QWidget) -> None:
        embed_in = getattr(panel, "embed_in", None)
        if embed_in is not None:
            embed_in(card)
        else:
            card.embed(panel)
        focus = getattr(panel, "focus", None)
        if focus is not None:
            focus()
        QTimer.singleShot(0, lambda: self.ensureWidgetVisible(card, 0, 0))

    def add_message(self, role: Role, text: str) -> MessageBubble:
        self._assistant = None
        bubble = MessageBubble(role, text)
        bubble.web_link_requested.connect(self.web_link_requested)
        self.add_widget(bubble)
        return bubble

    def add_user_message(self, text: str, refs: Sequence[ResourceRef] = ()) -> MessageBubble:
        """The user's message, with what they attached as chips that open the resource."""
        bubble = self.add_message("user", text)
        for chip in bubble.add_attachments(refs) if refs else []:
            chip.clicked.connect(lambda ref: self.open_resource.emit(ref.uri, ref.server))
        return bubble

    def clear(self) -> None:
        kept = (self.empty_hint, self.empty_card)
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            if item is not None and (widget := item.widget()) is not None and widget not in kept:
                widget.hide()
                widget.deleteLater()
        self._assistant = None
        self._cards.clear()
        self._below.clear()
        self._waiting.clear()
        self._layout.insertWidget(0, self.empty_hint)
        self.empty_hint.show()
        if self.empty_card is not None:
            self._layout.insertWidget(0, self.empty_card)
            self.empty_card.show()

    def show_history(self, messages: list[dict[str, Any]], events: Sequence[tuple[int, dict[str, Any]]] = ()) -> None:
        """Render a stored conversation as it happened: its messages, and the events kept beside them.

        `events` are (message position, event) pairs: each is shown after the first `position`
        messages. Conversations from before events were kept get plain cards from the messages.
        """
        self.clear()
        replay: dict[int, list[ChatEvent]] = {}
        started: set[tuple[int, str]] = set()
        results: set[tuple[int, str]] = set()
        for position, stored in events:
            event = event_from_dict(stored)
            if event is None:
                continue
            if isinstance(event, ToolCallStarted):
                started.add((position, event.call_id))
            elif isinstance(event, ToolResult):
                results.add((position, event.call_id))
                answer = messages[position] if position < len(messages) else {}
                if not event.text and answer.get("tool_call_id") == event.call_id:
                    event = replace(event, text=str(answer.get("content", "")))  # kept once, in the message
            replay.setdefault(position, []).append(event)
        # With kept events, a call that never started (a crash came first) is drawn where its
        # result is, after the calls before it; without events every card comes from the messages.
        unstarted: dict[str, dict[str, Any]] | None = {} if events else None
        for index, message in enumerate(messages):
            for event in replay.get(index, []):
                self.apply(event)
            self._show_message(index, message, started, results, unstarted)
        for event in replay.get(len(messages), []):
            self.apply(event)
        for call in (unstarted or {}).values():
            self._plain_card(call)
        self._end_assistant()

    def _plain_card(self, call: dict[str, Any]) -> ToolCard:
        """A call's card from its message alone (no events were kept for it)."""
        function = call.get("function", {})
        card = ToolCard(call.get("id", ""), "", function.get("name", "tool"), {})
        card.arguments.setPlainText(function.get("arguments", ""))
        card.set_state(CallState.DONE)
        self._cards[card.call_id] = card
        self.add_widget(card)
        return card

    def _show_message(
        self,
        index: int,
        message: dict[str, Any],
        started: set[tuple[int, str]],
        results: set[tuple[int, str]],
        unstarted: dict[str, dict[str, Any]] | None,
    ) -> None:
        role = message.get("role")
        if role == "user":
            self.add_message("user", _message_text(message))
        elif role == "assistant":
            if text := _message_text(message):
                self.add_message("assistant", text)
            calls = message.get("tool_calls") or []
            for call in calls:
                call_id = call.get("id", "")
                # A call starts after the results of the calls before it in the same message.
                if any((index + k, call_id) in started for k in range(1, len(calls) + 1)):
                    continue  # its kept events draw the card
                if unstarted is None:
                    self._plain_card(call)
                else:
                    unstarted[call_id] = call
        elif role == "tool" and (index, message.get("tool_call_id", "")) not in results:
            call_id = message.get("tool_call_id", "")
            if unstarted is not None and call_id in unstarted:
                self._plain_card(unstarted.pop(call_id))
            called = self._cards.get(call_id)
            text = str(message.get("content", ""))
            if called is not None and text == INTERRUPTED_RESULT:  # the app stopped: a decision may be shown
                called.set_result(text, is_error=False, denied=False, structured=None, binaries=[], interrupted=True)
            elif called is not None and not called.settled:
                called.set_result(text, is_error=False, denied=False, structured=None, binaries=[])

    # -- events ----------------------------------------------------------------------------

    def apply(self, event: ChatEvent) -> None:
        """Show one engine event; unknown kinds (usage) are for the status bar, not here."""
        if isinstance(event, TextDelta):
            if self._assistant is None:
                self._assistant = self.add_message("assistant", "")
            self._assistant.append(event.text)
        elif isinstance(event, ToolCallStarted):
            self._end_assistant()
            if event.server is not None and event.tool is not None:
                card = ToolCard.for_call(event)
                card.open_content.connect(self.open_content)
                self._cards[event.call_id] = card
                self.add_widget(card)
                panel = self._waiting.pop(event.call_id, None)
                if panel is not None and getattr(panel, "open", True):  # not withdrawn while it waited
                    self._place_panel(card, panel)
        elif isinstance(event, ToolDecision):
            if (decided := self._cards.get(event.call_id)) is not None:
                decided.apply_decision(event)
        elif isinstance(event, ToolProgress):
            if (running := self._cards.get(event.call_id)) is not None:
                share = f"{event.progress / event.total:.0%}" if event.total else f"{event.progress:g}"
                running.set_progress(f"{share} {event.message or ''}".strip())
        elif isinstance(event, ToolResult):
            result_card = self._cards.get(event.call_id)
            if result_card is not None:
                binaries = [
                    ResourceContent(uri=b.uri or "", mime_type=b.mime_type, data=b.data) for b in event.binaries
                ]
                result_card.set_result(
                    event.text,
                    is_error=event.is_error,
                    denied=event.denied,
                    structured=event.structured,
                    binaries=binaries,
                    cancelled=event.cancelled,
                )
        elif isinstance(event, ResourceRead):
            chip = ResourceChip(event.uri, event.total_size or None, event.truncated)
            chip.clicked.connect(lambda: self.open_resource.emit(event.uri, event.server))
            self.add_widget(chip, compact=True)
        elif isinstance(event, PromptInjected):
            self._end_assistant()
            lines = [f"**{event.name}** from {event.server}:"]
            lines += [f"- *{m.get('role')}*: {_message_text(m)[:400]}" for m in event.messages]
            self.add_message("prompt", "\n".join(lines))
        elif isinstance(event, ChatError):
            self._end_assistant()
            self.add_message("notice", event.message)
        elif isinstance(event, TurnFinished):
            self._end_assistant()
            if event.reason == "max_iterations":
                self.add_message("notice", event.text)
            elif event.reason == "cancelled":
                self.add_message("info", "Stopped.")

    def card(self, call_id: str) -> ToolCard | None:
        return self._cards.get(call_id)

    def _end_assistant(self) -> None:
        if self._assistant is not None:
            self._assistant.flush()
        self._assistant = None

    # -- following the stream --------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _on_range(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            QTimer.singleShot(0, lambda: self.verticalScrollBar().setValue(self.verticalScrollBar().maximum()))
