"""The inline form for a prompt chosen in the palette: its arguments, with server completions."""

from __future__ import annotations

import html

from mcp_types import Prompt, PromptReference
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.completing_fields import CompletingFields, FieldSpec
from desktop_app.qt_kit.theme import muted, themed, themed_text
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_text import plain_label
from desktop_app.ui.widgets.style import error_label


class PromptForm(QFrame):
    """Emits `submitted(server, prompt name, arguments)` once every required argument is filled."""

    submitted = Signal(str, str, dict)

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("promptForm")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        themed(self, lambda p: f"#promptForm {{ border: 1px solid {p.caution}; border-radius: {SPACE.radius}px; }}")
        self._server = ""
        self._prompt: Prompt | None = None
        self.heading = QLabel()
        self.description = plain_label()  # the server's words: never read as markup
        self.description.setWordWrap(True)
        muted(self.description)
        self.fields = CompletingFields(bridge)
        self.fields.submitted.connect(self.submit)
        self.problem = error_label()
        self.insert = QPushButton("Use prompt")
        self.insert.setDefault(True)
        self.insert.clicked.connect(self.submit)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.hide)
        QShortcut(
            QKeySequence(Qt.Key.Key_Escape), self, self.hide, context=Qt.ShortcutContext.WidgetWithChildrenShortcut
        )
        buttons = QHBoxLayout()
        buttons.addWidget(self.problem, 1)
        buttons.addWidget(cancel)
        buttons.addWidget(self.insert)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.heading)
        layout.addWidget(self.description)
        layout.addWidget(self.fields)
        layout.addLayout(buttons)
        self.hide()

    def open_for(self, server: str, prompt: Prompt) -> None:
        self._server = server
        self._prompt = prompt
        title, source = (html.escape(printable(text)) for text in (prompt.title or prompt.name, server))
        themed_text(self.heading, lambda p: f"<b>{title}</b> <span style='color: {p.muted};'>from {source}</span>")
        self.description.setText(prompt.description or "")
        self.description.setVisible(bool(prompt.description))
        specs = [FieldSpec(a.name, a.description, bool(a.required)) for a in prompt.arguments or []]
        self.problem.clear()
        self.show()
        self.fields.set_fields(server, PromptReference(name=prompt.name), specs)
        if not specs:
            self.insert.setFocus()

    def submit(self) -> None:
        if self._prompt is None:
            return
        if missing := self.fields.missing():
            self.problem.setText(f"Fill in: {', '.join(missing)}")
            return
        arguments = {k: v for k, v in self.fields.values().items() if v}
        self.hide()
        self.submitted.emit(self._server, self._prompt.name, arguments)
