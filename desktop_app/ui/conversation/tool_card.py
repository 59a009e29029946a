"""A tool call in the conversation: who, with what, how it went, and what came back."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.content import ResourceContent, human_size


class CallState(StrEnum):
    AWAITING = "awaiting approval"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"
    DENIED = "denied"


_BADGE = {
    CallState.AWAITING: "#d9a21b",
    CallState.RUNNING: "#4f6cf7",
    CallState.DONE: "#2e9e5b",
    CallState.ERROR: "#d64545",
    CallState.DENIED: "#8a8f98",
}


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


def fit_lines(edit: QPlainTextEdit, text: str, max_lines: int) -> None:
    """Size a text box to its content (up to `max_lines`), so short JSON takes little room."""
    lines = min(max(text.count("\n") + 1, 1), max_lines)
    edit.setFixedHeight(edit.fontMetrics().lineSpacing() * lines + 14)


def _mono_edit(text: str, max_lines: int = 12) -> QPlainTextEdit:
    edit = QPlainTextEdit(text)
    edit.setReadOnly(True)
    edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    fit_lines(edit, text, max_lines)
    return edit


class ToolCard(QFrame):
    """Header (server · tool · state), arguments, and a collapsed result with any images or files."""

    open_content = Signal(object)  # ResourceContent: show it in the viewer pane

    def __init__(self, call_id: str, server: str, tool: str, arguments: dict[str, Any], parent: QWidget | None = None):
        super().__init__(parent)
        self.call_id = call_id
        self.setObjectName("toolCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#toolCard { border: 1px solid rgba(127,127,127,90); border-radius: 8px; }")
        self.title = QLabel(f"<b>{tool}</b> &nbsp;<span style='color:#8a8f98'>on {server}</span>")
        self.badge = QLabel()
        self.progress = QLabel()
        self.progress.setStyleSheet("color: #8a8f98;")
        header = QHBoxLayout()
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.progress)
        header.addWidget(self.badge)
        self.arguments = _mono_edit(pretty_json(arguments), 8)
        self.result_toggle = QToolButton()
        self.result_toggle.setText("Result")
        self.result_toggle.setCheckable(True)
        self.result_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.result_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.result_toggle.setVisible(False)
        self.result_box = QWidget()
        self.result_layout = QVBoxLayout(self.result_box)
        self.result_layout.setContentsMargins(0, 0, 0, 0)
        self.result_box.setVisible(False)
        self.result_toggle.toggled.connect(self._toggle_result)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 8)
        layout.addLayout(header)
        layout.addWidget(self.arguments)
        layout.addWidget(self.result_toggle)
        layout.addWidget(self.result_box)
        self.state = CallState.RUNNING
        self.set_state(CallState.RUNNING)

    def set_state(self, state: CallState) -> None:
        self.state = state
        self.badge.setText(f" {state.value} ")
        self.badge.setStyleSheet(f"background: {_BADGE[state]}; color: white; border-radius: 6px; padding: 1px 6px;")
        if state is not CallState.RUNNING:
            self.progress.clear()

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        """The user may have edited the arguments before allowing: show what was really sent."""
        text = pretty_json(arguments)
        self.arguments.setPlainText(text)
        fit_lines(self.arguments, text, 8)

    def set_progress(self, text: str) -> None:
        self.progress.setText(text)

    def set_result(
        self, text: str, *, is_error: bool, denied: bool, structured: Any, binaries: list[ResourceContent]
    ) -> None:
        self.set_state(CallState.DENIED if denied else CallState.ERROR if is_error else CallState.DONE)
        shown = pretty_json(structured) if structured is not None else text
        self.result_layout.addWidget(_mono_edit(shown, 16))
        for content in binaries:
            self.result_layout.addWidget(self._binary_row(content))
        self.result_toggle.setVisible(True)
        if is_error or denied:
            self.result_toggle.setChecked(True)

    def _binary_row(self, content: ResourceContent) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        if content.mime_type and content.mime_type.startswith("image/") and content.data:
            thumb = QPixmap()
            if thumb.loadFromData(content.data) and not thumb.isNull():
                label = QLabel()
                label.setPixmap(
                    thumb.scaled(
                        240, 160, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
                    )
                )
                layout.addWidget(label)
        layout.addWidget(QLabel(f"{content.mime_type or 'binary'} · {human_size(content.size)}"))
        button = QPushButton("Open")
        button.clicked.connect(lambda: self.open_content.emit(content))
        layout.addWidget(button)
        layout.addStretch(1)
        return row

    def _toggle_result(self, shown: bool) -> None:
        self.result_box.setVisible(shown)
        self.result_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)


class ResourceChip(QPushButton):
    """A light mark that the model read a resource; clicking opens it in the viewer."""

    def __init__(self, uri: str, size: int | None, truncated: bool, parent: QWidget | None = None) -> None:
        size_text = f", {human_size(size)}" if size is not None else ""
        cut = " (cut at the safety cap)" if truncated else ""
        super().__init__(f"read {uri}{size_text}{cut}", parent)
        self.uri = uri
        self.setObjectName("resourceChip")
        self.setFlat(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setStyleSheet(
            "#resourceChip { border: 1px solid rgba(79,108,247,120); border-radius: 10px; padding: 2px 10px;"
            " color: #4f6cf7; text-align: left; }"
        )
