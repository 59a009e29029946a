"""The conversation header's mark that untrusted content is in the chat, and why.

It stays for the life of the conversation (resumed chats included): the content is in the
history the model reads from then on, so rules stay paused for tools that are not read-only.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from desktop_app.ui.conversation.approval_words import CAUTION_COLOUR

_EXPLAIN = (
    "Content from outside your control is in this conversation: a resource, prompt or tool result from a"
    " server you have not marked as trusted, or from a tool that reaches the open world. It may try to"
    " steer the model. From now on, tools that are not read-only ask you every time, even those you"
    " allowed for this chat or always allow. Start a new chat to leave it behind."
)


class TaintChip(QWidget):
    """A slim header row: "Untrusted content in this chat: <first reason> (+N more)"; hidden when clean."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taintHeader")
        self.label = QLabel()
        self.label.setObjectName("taintChip")
        self.label.setWordWrap(True)
        self.label.setStyleSheet(
            f"#taintChip {{ border: 1px solid {CAUTION_COLOUR}; border-radius: 10px; padding: 2px 10px; }}"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 6, 16, 2)
        layout.addWidget(self.label, 1)
        self.reasons: list[str] = []
        self.hide()

    def set_reasons(self, reasons: list[str]) -> None:
        self.reasons = list(reasons)
        if not reasons:
            self.hide()
            return
        more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
        self.label.setText(f"⚠ Untrusted content in this chat: {reasons[0]}{more}")
        listed = "\n".join(f"• {reason}" for reason in reasons)
        self.label.setToolTip(f"{_EXPLAIN}\n\n{listed}")
        self.show()
