"""The scrolling conversation: renders a turn's events as they arrive."""

from __future__ import annotations

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
    ToolProgress,
    ToolResult,
    TurnFinished,
    Usage,
)
from desktop_app.core.content import ResourceContent
from desktop_app.ui.conversation.message_bubble import MessageBubble, Role
from desktop_app.ui.conversation.tool_card import CallState, ResourceChip, ToolCard


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
        self.add_widget(self.empty_hint)

    # -- building blocks -------------------------------------------------------------------

    def add_widget(self, widget: QWidget, *, compact: bool = False) -> QWidget:
        """Append below the last item; `compact` items (chips) keep their own width, left-aligned."""
        if widget is not self.empty_hint:
            self.empty_hint.hide()
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
        below = [w for w in self._below.get(call_id, []) if self._layout.indexOf(w) >= 0]
        anchor: QWidget = below[-1] if below else card  # type: ignore[assignment]
        self._layout.insertWidget(self._layout.indexOf(anchor) + 1, widget)
        self._below[call_id] = [*below, widget]
        return widget

    def add_message(self, role: Role, text: str) -> MessageBubble:
        self._assistant = None
        bubble = MessageBubble(role, text)
        self.add_widget(bubble)
        return bubble

    def clear(self) -> None:
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            if item is not None and (widget := item.widget()) is not None and widget is not self.empty_hint:
                widget.deleteLater()
        self._assistant = None
        self._cards.clear()
        self._below.clear()
        self._layout.insertWidget(0, self.empty_hint)
        self.empty_hint.show()

    def show_history(self, messages: list[dict[str, Any]]) -> None:
        """Render a stored conversation (as sent to the model) without replaying events."""
        self.clear()
        for message in messages:
            role = message.get("role")
            if role == "user":
                self.add_message("user", _message_text(message))
            elif role == "assistant":
                if text := _message_text(message):
                    self.add_message("assistant", text)
                for call in message.get("tool_calls") or []:
                    name = call.get("function", {}).get("name", "tool")
                    card = ToolCard(call.get("id", ""), "", name, {})
                    card.arguments.setPlainText(call.get("function", {}).get("arguments", ""))
                    card.set_state(CallState.DONE)
                    self._cards[card.call_id] = card
                    self.add_widget(card)

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
                card = ToolCard(event.call_id, event.server, event.tool, event.arguments)
                card.open_content.connect(self.open_content)
                self._cards[event.call_id] = card
                self.add_widget(card)
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
                )
        elif isinstance(event, ResourceRead):
            size = sum(c.size for c in event.contents) if event.contents else None
            chip = ResourceChip(event.uri, size, event.truncated)
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
                self.add_message("notice", "Stopped.")
        elif isinstance(event, Usage):
            return

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
