"""Cards for content with no native view: other binary data (with "Save as…"), and errors."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QStyle, QVBoxLayout, QWidget

from desktop_app.core.content import ResourceContent, human_size
from desktop_app.qt_kit.icons import kind_for, kind_icon


def suggested_file_name(uri: str) -> str:
    name = uri.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return name if name and ":" not in name else "resource.bin"


def _centered_column(widget: QWidget) -> QVBoxLayout:
    """A column up to 520 px wide in the middle of `widget`, so wrapped text keeps a readable measure."""
    column = QWidget()
    column.setMaximumWidth(520)
    outer = QHBoxLayout(widget)
    outer.addStretch(1)
    outer.addWidget(column, 10)
    outer.addStretch(1)
    layout = QVBoxLayout(column)
    layout.setSpacing(8)
    return layout


def _wrapped(text: str = "", *, selectable: bool = False) -> QLabel:
    """A label for what a server said (a type, a URI, an error): plain text, never guessed to be markup."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class BinaryCard(QWidget):
    """What the data is (type, size, URI) and a way to save it; the app never guesses further."""

    saved = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("binaryCard")
        self._content: ResourceContent | None = None
        self.icon = QLabel()
        self.icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = _wrapped()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.details = _wrapped(selectable=True)
        self.status = _wrapped()
        self.save_button = QPushButton("Save as…")
        self.save_button.clicked.connect(self.choose_file)
        layout = _centered_column(self)
        layout.addStretch(1)
        for widget in (self.icon, self.title, self.details):
            layout.addWidget(widget)
        layout.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.status)
        layout.addStretch(1)

    def show_content(self, content: ResourceContent) -> None:
        self._content = content
        kind = kind_for(content.mime_type, content.uri)
        self.icon.setPixmap(kind_icon(kind, 48).pixmap(48, 48))
        self.title.setText(content.mime_essence or "application/octet-stream")
        lines = [f"{human_size(content.size)} ({content.size:,} bytes)", content.uri]
        if content.note:
            lines.append(f"Note: {content.note}.")
        self.details.setText("\n".join(lines))
        self.status.clear()

    def choose_file(self) -> QFileDialog:
        """Ask where to save without a nested event loop (the dialog is window-modal, opened)."""
        dialog = QFileDialog(self, "Save resource as")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.selectFile(suggested_file_name(self._content.uri if self._content else ""))
        dialog.fileSelected.connect(self.save_to)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def save_to(self, path: str) -> None:
        if self._content is None or self._content.data is None:
            return
        try:
            Path(path).write_bytes(self._content.data)
        except OSError as exc:
            self.status.setText(f"Could not save: {exc.strerror or exc}")
            return
        self.status.setText(f"Saved to {path}")
        self.saved.emit(path)


class ErrorCard(QWidget):
    """Why a resource cannot be shown, with a retry; the rest of the app carries on."""

    retry_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorCard")
        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(40, 40))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.heading = _wrapped()
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.message = _wrapped(selectable=True)
        self.retry_button = QPushButton("Retry")
        self.retry_button.clicked.connect(lambda: self.retry_requested.emit())
        layout = _centered_column(self)
        layout.addStretch(1)
        for widget in (icon, self.heading, self.message):
            layout.addWidget(widget)
        layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)

    def show_error(self, heading: str, message: str) -> None:
        self.heading.setText(heading)
        self.message.setText(message)
