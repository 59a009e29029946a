"""Where the user writes: multi-line text, attached resources as removable chips, shortcuts.

Ctrl+Enter sends, Esc cancels the running turn, Ctrl+K (or `/` at the very start) opens the
palette, Up in an empty composer edits the last message (Send then replaces it; Esc stops editing).
The composer only emits signals; the window decides what they do. Resources dropped anywhere on the
conversation pane land here (`attach`).
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.action_icon import give_icon
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.layout_widgets import widgets_in
from desktop_app.qt_kit.theme import muted, primary, themed
from desktop_app.qt_kit.tokens import SPACE, Palette
from desktop_app.ui.conversation.attachment_chip import AttachmentChip
from desktop_app.ui.conversation.reading_column import centre_column

MIN_LINES: Final = 2
"""An empty composer is this tall: room to start writing, and the chat keeps the height."""
MAX_LINES: Final = 8
"""It grows with what is written up to this many lines, then scrolls."""


def composer_sheet(p: Palette) -> str:
    """The composer continues the conversation's surface, its field raised above it."""
    return (
        f"#composer {{ background: {p.surface}; }}"
        f" #composerEditor {{ background: {p.raised}; color: {p.text}; border: 1px solid {p.field_border};"
        f" border-radius: {SPACE.radius}px; }}"
        f" #composerEditor:focus {{ border-color: {p.accent}; }}"
    )


class Composer(QWidget):
    send_requested = Signal(str, list)  # text, list[ResourceRef]
    cancel_requested = Signal()
    palette_requested = Signal()
    open_requested = Signal(object)  # ResourceRef: a chip was clicked
    edit_requested = Signal()  # Up in an empty composer: edit the last message

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("composerEditor")
        self.editor.setPlaceholderText("Message…  (Ctrl+Enter to send, Ctrl+K for prompts, drop resources to attach)")
        self.editor.setAcceptDrops(False)  # drops go up to the conversation pane, which knows resources
        self.editor.installEventFilter(self)
        self.send_button = primary(QPushButton("Send"))
        self.send_button.setObjectName("sendButton")
        self.send_button.setToolTip("Send (Ctrl+Enter)")
        give_icon(self.send_button, "send-horizontal", rest="on_accent", active="on_accent")  # on the accent fill
        self.send_button.clicked.connect(self.send)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the running answer (Esc)")
        give_icon(self.stop_button, "square")
        self.stop_button.clicked.connect(self.cancel_requested)
        self.stop_button.setVisible(False)
        self.prompt_origin: str | None = None
        """The prompt the current draft came from, while it does."""
        self.editing = False
        """The draft is an edit of the last message: Send replaces that message and what followed it."""
        self._busy = False
        self.prompt_label = QLabel()
        self.prompt_label.setObjectName("composerPromptOrigin")
        muted(self.prompt_label)
        self.prompt_label.setWordWrap(True)
        self.prompt_label.hide()
        self.chips = QWidget()
        self.chips.setObjectName("composerChips")
        self._chips = FlowLayout(self.chips)
        self.chips.hide()
        self.attachments: list[ResourceRef] = []
        row = QHBoxLayout()
        row.addWidget(self.editor, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE.xl, SPACE.s + 2, SPACE.xl, SPACE.l)
        self._layout = layout
        self.setObjectName("composer")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        themed(self, composer_sheet)
        layout.addWidget(self.prompt_label)
        layout.addWidget(self.chips)
        layout.addLayout(row)
        self.editor.textChanged.connect(self.refit)  # and on the editor's resizes: its lines wrap anew
        self.refit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        centre_column(self._layout, self.width())  # under the conversation's column, as wide

    def refit(self) -> None:
        """As tall as what is written (the placeholder when empty), from `MIN_LINES` to `MAX_LINES` lines."""
        editor = self.editor
        width = editor.viewport().width() - 2 * int(editor.document().documentMargin())
        if editor.document().isEmpty():
            flags = Qt.TextFlag.TextWordWrap
            bound = editor.fontMetrics().boundingRect(
                QRect(0, 0, max(width, 1), 10_000), flags, editor.placeholderText()
            )
            lines = -(-bound.height() // editor.fontMetrics().lineSpacing())
        else:
            lines, block = 0, editor.document().firstBlock()
            while block.isValid():
                layout = block.layout()
                lines += max(layout.lineCount() if layout is not None else 1, 1)
                block = block.next()
        shown = min(max(lines, MIN_LINES), MAX_LINES)
        frame = editor.frameWidth() * 2 + int(editor.document().documentMargin()) * 2
        height = editor.fontMetrics().lineSpacing() * shown + frame
        if editor.height() != height or editor.minimumHeight() != height:
            editor.setFixedHeight(height)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        # One hidden before the other is shown: never both at once, which would make the composer a row taller
        # for a moment, and the conversation above it lay out its whole column twice per turn.
        leaving, coming = (self.send_button, self.stop_button) if busy else (self.stop_button, self.send_button)
        leaving.setVisible(False)
        coming.setVisible(True)

    def set_editing(self, text: str, refs: list[ResourceRef]) -> None:
        """Edit the last message: its text and attachments here, and the note that Send replaces it."""
        self.clear()
        self.editing = True
        self.prompt_label.setText(
            "Editing your last message: Send replaces it and its answer (both stay in the history). Esc stops editing."
        )
        self.prompt_label.show()
        self.editor.setPlainText(text)
        self.attach(refs)
        cursor = self.editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.editor.setTextCursor(cursor)
        self.editor.setFocus()

    def attach(self, refs: list[ResourceRef]) -> None:
        for ref in refs:
            if ref in self.attachments:
                continue
            self.attachments.append(ref)
            chip = AttachmentChip(ref)
            chip.removed.connect(self.detach)
            chip.clicked.connect(self.open_requested)
            self._chips.addWidget(chip)
        self.chips.setVisible(bool(self.attachments))

    def detach(self, ref: ResourceRef) -> None:
        if ref in self.attachments:
            self.attachments.remove(ref)
        for widget in widgets_in(self._chips):
            if isinstance(widget, AttachmentChip) and widget.ref == ref:
                self._chips.removeWidget(widget)
                widget.deleteLater()
        self.chips.setVisible(bool(self.attachments))

    def send(self) -> None:
        text = self.editor.toPlainText().strip()
        if not text and not self.attachments:
            return
        self.send_requested.emit(text, list(self.attachments))

    def set_prompt_draft(self, origin: str, text: str, refs: list[ResourceRef]) -> None:
        """A prompt the user picked: its text to edit and its resources as chips, like dragged ones."""
        self.prompt_origin = origin
        self.prompt_label.setText(f"Prompt {origin}")
        self.prompt_label.show()
        if text:
            self.editor.setPlainText(text)
        self.attach(refs)

    def clear(self) -> None:
        """After a send was accepted (or a new chat): empty the text, the chips and the prompt note."""
        self.editor.clear()
        for ref in list(self.attachments):
            self.detach(ref)
        self.prompt_origin = None
        self.editing = False
        self.prompt_label.hide()

    def insert_text(self, text: str) -> None:
        self.editor.insertPlainText(text)
        self.editor.setFocus()

    # -- keys --------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() == QEvent.Type.Resize:
            self.refit()
        if watched is self.editor and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key, mods = event.key(), event.modifiers()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and mods & Qt.KeyboardModifier.ControlModifier:
                self.send()
                return True
            if key == Qt.Key.Key_Escape:
                if self.editing and not self._busy:
                    self.clear()  # stop editing; the message stays as it was
                else:
                    self.cancel_requested.emit()
                return True
            if key == Qt.Key.Key_Up and not mods and not self.editor.toPlainText() and not self._busy:
                self.edit_requested.emit()
                return True
            if key == Qt.Key.Key_K and mods & Qt.KeyboardModifier.ControlModifier:
                self.palette_requested.emit()
                return True
            if event.text() == "/" and not self.editor.toPlainText():
                self.palette_requested.emit()
                return True
        return super().eventFilter(watched, event)
