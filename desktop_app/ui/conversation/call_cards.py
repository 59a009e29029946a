"""What reaches a tool call's card once it is drawn: its approval panel, decision, progress and result.

The engine asks as it emits, so a call's approval may arrive before the call's card: it waits here
until that card is drawn. A card that already has a decision or a result belongs to an earlier call
that reused the id; the panel waits for the new one.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QWidget

from desktop_app.core.chat.events import ToolDecision, ToolProgress, ToolResult
from desktop_app.core.content import ResourceContent
from desktop_app.ui.conversation.tool_card import ToolCard


class CardPanels:
    """Puts each approval panel in its call's card, now or once the card is drawn; `reveal` scrolls to it."""

    def __init__(self, reveal: Callable[[ToolCard], None]) -> None:
        self._reveal = reveal
        self._waiting: dict[str, QWidget] = {}
        """Panels that arrived before their call's card, by call."""

    def embed(self, call_id: str, card: ToolCard | None, panel: QWidget) -> None:
        """Put `panel` in `card` (the card of `call_id` drawn now, if any), or keep it for the card to come."""
        if card is None or card.settled:
            self._waiting[call_id] = panel
        else:
            self._place(card, panel)

    def card_drawn(self, card: ToolCard) -> None:
        """A call's card was drawn: the panel waiting for it goes in, unless it was withdrawn meanwhile."""
        panel = self._waiting.pop(card.call_id, None)
        if panel is not None and getattr(panel, "open", True):
            self._place(card, panel)

    def clear(self) -> None:
        self._waiting.clear()

    def _place(self, card: ToolCard, panel: QWidget) -> None:
        embed_in = getattr(panel, "embed_in", None)
        if embed_in is not None:
            embed_in(card)
        else:
            card.embed(panel)
        focus = getattr(panel, "focus", None)
        if focus is not None:
            focus()
        self._reveal(card)


def show_on_card(card: ToolCard, event: ToolDecision | ToolProgress | ToolResult) -> None:
    """A call's decision, progress or result, on its card."""
    if isinstance(event, ToolDecision):
        card.apply_decision(event)
    elif isinstance(event, ToolProgress):
        share = f"{event.progress / event.total:.0%}" if event.total else f"{event.progress:g}"
        card.set_progress(f"{share} {event.message or ''}".strip())
    else:
        binaries = [ResourceContent(uri=b.uri or "", mime_type=b.mime_type, data=b.data) for b in event.binaries]
        card.set_result(
            event.text,
            is_error=event.is_error,
            denied=event.denied,
            structured=event.structured,
            binaries=binaries,
            cancelled=event.cancelled,
        )
