"""What the conversation offers on its last turn (Edit, Retry, Regenerate) and how a replaced turn looks.

A turn sent again stays in the column as it was sent, greyed, under a note saying why; the model no
longer reads it. The offers move to the newest turn: Edit on the user's message, Retry on a failure or
a stop after it, else Regenerate on the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from PySide6.QtWidgets import QBoxLayout, QLabel

from desktop_app.qt_kit.layout_widgets import widgets_in
from desktop_app.qt_kit.theme import themed
from desktop_app.ui.conversation.message_bubble import MessageBubble

STOPPED: Final = "Stopped."
"""The line a stopped turn ends with (Retry is offered on it)."""
REPLACED: Final = {
    "retry": "Replaced: you sent the message below again. Kept as it was sent; the model no longer reads it.",
    "regenerate": "Replaced: you asked for another answer. Kept as it was sent; the model no longer reads it.",
    "edit": "Replaced: you edited the message below. Kept as it was sent; the model no longer reads it.",
}


def mark_replaced_rows(layout: QBoxLayout, start: int, end: int, reason: str) -> QLabel:
    """Grey the rows `start`…`end - 1` of `layout` and put a note saying why above them; returns the note."""
    for widget in widgets_in(layout, start, end):
        if isinstance(widget, MessageBubble):
            widget.mark_replaced()
        else:
            widget.setEnabled(False)
    note = QLabel(REPLACED.get(reason, REPLACED["retry"]))
    note.setObjectName("replacedNote")
    note.setWordWrap(True)
    themed(note, lambda p: f"#replacedNote {{ color: {p.muted}; font-style: italic; padding: 2px 4px; }}")
    layout.insertWidget(start, note)
    return note


class TurnOffers:
    """The messages showing Edit, Retry or Regenerate: only the last turn's."""

    def __init__(self) -> None:
        self._offered: list[MessageBubble] = []

    def offer(
        self,
        message: MessageBubble,
        after: Sequence[MessageBubble],
        *,
        edit: Callable[[], object] | None,
        again: Callable[[], object],
    ) -> None:
        """Edit on the user's `message`; Retry on the failure or stop that ends `after` (the messages
        after it), else Regenerate on its last answer. Earlier offers go."""
        self.clear()
        if edit is not None:
            message.set_actions([("Edit", "Change this message and send it again (Up in an empty composer)", edit)])
            self._offered.append(message)
        if after and (after[-1].role == "notice" or (after[-1].role == "info" and after[-1].text == STOPPED)):
            after[-1].set_actions([("Retry", "Send your message again", again)])
            self._offered.append(after[-1])
        elif answers := [b for b in after if b.role == "assistant"]:
            answers[-1].set_actions([("Regenerate", "Ask for another answer to your message", again)])
            self._offered.append(answers[-1])

    def clear(self) -> None:
        offered, self._offered = self._offered, []
        for bubble in offered:
            bubble.set_actions([])

    def forget(self) -> None:
        """The messages are gone (the column was cleared): nothing to take back."""
        self._offered.clear()
