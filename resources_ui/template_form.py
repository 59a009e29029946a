"""The form for a resource template: one field per RFC 6570 variable, with server completions."""

from __future__ import annotations

from typing import Any

from mcp_types import ResourceTemplateReference
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from uritemplate import URITemplate

from desktop_app.bridge import CoreBridge
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.qt_kit.completing_fields import CompletingFields, FieldSpec
from resources_ui.tree_entries import Entry


def template_variables(uri_template: str) -> list[str]:
    """Variable names in order of first appearance, parsed by `uritemplate` (RFC 6570)."""
    names: list[str] = []
    for variable in URITemplate(uri_template).variables:
        for name in variable.variable_names:
            if name not in names:
                names.append(name)
    return names


def expand_template(uri_template: str, values: dict[str, str]) -> str:
    """The URI with each variable filled in and percent-encoded as its operator requires."""
    variables: dict[str, Any] = dict(values)
    expanded: str = URITemplate(uri_template).expand(variables)
    return expanded


class TemplateForm(QWidget):
    """Fill in a template; "Open" previews the expanded URI and "Attach" attaches it."""

    open_requested = Signal(object)
    """ResourceRef of the expanded URI, to be read and shown."""
    attach_requested = Signal(list)
    """list[ResourceRef] with the expanded URI."""
    completions_shown = Signal(str, list)
    """Variable name and the values the server suggested for it."""

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("templateForm")
        self._entry: Entry | None = None
        self.fields = CompletingFields(bridge)
        self.fields.changed.connect(self.update_preview)
        self.fields.submitted.connect(self.open_expanded)
        self.fields.completions_shown.connect(self.completions_shown)
        self.heading = QLabel()
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.preview = QLabel()
        self.preview.setObjectName("templatePreview")
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open")
        self.open_button.setDefault(True)
        self.open_button.clicked.connect(self.open_expanded)
        self.attach_button = QPushButton("Attach")
        self.attach_button.clicked.connect(self._attach)
        buttons = QHBoxLayout()
        buttons.addWidget(self.preview, 1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.attach_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.description)
        layout.addWidget(self.fields)
        layout.addLayout(buttons)

    @property
    def entry(self) -> Entry | None:
        return self._entry

    def field(self, name: str) -> QLineEdit:
        return self.fields.field(name)

    def suggestions(self, name: str) -> list[str]:
        """The server's latest completions for field `name`."""
        return self.fields.suggestions(name)

    def variables(self) -> list[str]:
        return self.fields.names()

    def set_template(self, entry: Entry) -> None:
        """Show a form for `entry` (a template), with empty fields."""
        self._entry = entry
        specs = [FieldSpec(name) for name in template_variables(entry.uri)]
        self.fields.set_fields(entry.server, ResourceTemplateReference(uri=entry.uri), specs)
        self.heading.setText(f"{entry.label} — {entry.uri}")
        self.description.setText(entry.description or "")
        self.description.setVisible(bool(entry.description))
        self.update_preview()

    def values(self) -> dict[str, str]:
        return self.fields.values()

    def expanded_ref(self) -> ResourceRef | None:
        """The resource the filled-in form names, or None while a field is empty."""
        entry = self._entry
        values = self.values()
        if entry is None or not all(values.values()):
            return None
        uri = expand_template(entry.uri, values)
        name = f"{entry.label} ({', '.join(values.values())})" if values else entry.label
        return ResourceRef(entry.server, uri, name, entry.mime_type)

    def update_preview(self) -> None:
        ref = self.expanded_ref()
        self.preview.setText(ref.uri if ref is not None else "Fill in every field")
        self.open_button.setEnabled(ref is not None)
        self.attach_button.setEnabled(ref is not None)

    # -- actions ---------------------------------------------------------------------------

    def open_expanded(self) -> None:
        ref = self.expanded_ref()
        if ref is not None:
            self.open_requested.emit(ref)

    def _attach(self) -> None:
        ref = self.expanded_ref()
        if ref is not None:
            self.attach_requested.emit([ref])
