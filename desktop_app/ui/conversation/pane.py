"""The middle of the window: the conversation, the prompt form and the composer in one column.

A resource dropped anywhere on the column (the messages as much as the composer) is attached
to the message being written; while a drag is over it, the column says so.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop_app.qt_kit.drag_payload import decode_resources
from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView


class ConversationPane(QWidget):
    def __init__(
        self,
        conversation: ConversationView,
        form: QWidget,
        composer: Composer,
        parent: QWidget | None = None,
        *,
        header: QWidget | None = None,
    ) -> None:
        """`header` sits above the messages (the chat's taint chip)."""
        super().__init__(parent)
        self.setObjectName("conversationPane")
        self.setAcceptDrops(True)
        self.composer = composer
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        if header is not None:
            column.addWidget(header)
        column.addWidget(conversation, 1)
        column.addWidget(form)
        column.addWidget(composer)
        self.drop_hint = QLabel("Drop to attach to your message", self)
        self.drop_hint.setObjectName("dropHint")
        self.drop_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        themed(
            self.drop_hint,
            lambda p: (
                f"#dropHint {{ background: {p.raised}; border: 2px dashed {p.accent};"
                f" border-radius: {SPACE.radius + 2}px; color: {p.accent}; font-weight: bold; }}"
            ),
        )
        self.drop_hint.hide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.drop_hint.setGeometry(self.rect().adjusted(6, 6, -6, -6))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if decode_resources(event.mimeData()):
            event.acceptProposedAction()
            self.drop_hint.raise_()
            self.drop_hint.show()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if decode_resources(event.mimeData()):
            event.acceptProposedAction()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drop_hint.hide()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_hint.hide()
        refs = decode_resources(event.mimeData())
        if refs:
            self.composer.attach(refs)
            self.composer.editor.setFocus()
            event.acceptProposedAction()
