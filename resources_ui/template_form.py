"""The form for a resource template: one field per RFC 6570 variable, with server completions.

Completions are asked for about 250 ms after the user stops typing in a field, passing the
other filled-in fields as context; an answer that arrives after the field changed again is
dropped, so suggestions never lag behind the text.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from mcp_types import ResourceTemplateReference
from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCompleter,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from uritemplate import URITemplate

from desktop_app.core.connection import describe_error
from desktop_app.ui.bridge import CoreBridge
from resources_ui.drag_payload import ResourceRef
from resources_ui.tree_model import Entry

log = logging.getLogger(__name__)

COMPLETION_DELAY_MS: Final = 250


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


class _Field:
    """One variable's line edit, its completer and its pending completion request."""

    def __init__(self, name: str, owner: TemplateForm) -> None:
        self.name = name
        self.edit = QLineEdit()
        self.edit.setObjectName(f"templateField_{name}")
        self.edit.setPlaceholderText(name)
        self.model = QStringListModel()
        self.completer = QCompleter(self.model, self.edit)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.edit.setCompleter(self.completer)
        self.timer = QTimer(owner, singleShot=True, interval=COMPLETION_DELAY_MS)
        self.timer.timeout.connect(lambda: owner.request_completions(self.name))
        self.edit.textEdited.connect(lambda _text: self.timer.start())
        self.edit.textChanged.connect(lambda _text: owner.update_preview())
        self.edit.returnPressed.connect(owner.open_expanded)
        self.edit.installEventFilter(owner)
        self.serial = 0


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
        self._bridge = bridge
        self._entry: Entry | None = None
        self._fields: dict[str, _Field] = {}
        self.heading = QLabel()
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self._form = QFormLayout()
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
        layout.addLayout(self._form)
        layout.addLayout(buttons)

    @property
    def entry(self) -> Entry | None:
        return self._entry

    def field(self, name: str) -> QLineEdit:
        return self._fields[name].edit

    def suggestions(self, name: str) -> list[str]:
        """The server's latest completions for field `name`."""
        return self._fields[name].model.stringList()

    def variables(self) -> list[str]:
        return list(self._fields)

    def set_template(self, entry: Entry) -> None:
        """Show a form for `entry` (a template), with empty fields."""
        self._entry = entry
        while self._form.rowCount():
            self._form.removeRow(0)
        self._fields = {name: _Field(name, self) for name in template_variables(entry.uri)}
        for field in self._fields.values():
            self._form.addRow(f"{field.name}:", field.edit)
        self.heading.setText(f"{entry.label} — {entry.uri}")
        self.description.setText(entry.description or "")
        self.description.setVisible(bool(entry.description))
        self.update_preview()
        if self._fields:
            next(iter(self._fields.values())).edit.setFocus()

    def values(self) -> dict[str, str]:
        return {name: field.edit.text().strip() for name, field in self._fields.items()}

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

    # -- completions -----------------------------------------------------------------------

    def request_completions(self, name: str) -> None:
        """Ask the server now (the debounce timer calls this) for values of field `name`."""
        field = self._fields.get(name)
        if field is None or self._entry is None:
            return
        field.serial += 1
        context = {k: v for k, v in self.values().items() if k != name and v}
        self._bridge.spawn(
            self._complete(self._entry, field, field.serial, field.edit.text(), context),
            f"Completing {name}",
        )

    async def _complete(self, entry: Entry, field: _Field, serial: int, value: str, context: dict[str, str]) -> None:
        try:
            connection = self._bridge.host.connection(entry.server)
            reference = ResourceTemplateReference(uri=entry.uri)
            result = await connection.complete(reference, field.name, value, context or None)
        except Exception as exc:
            # Many servers offer no completions; a form without suggestions still works.
            log.debug("no completions for %s: %s", field.name, describe_error(exc))
            return
        if serial != field.serial or self._fields.get(field.name) is not field or field.edit.text() != value:
            return
        values = list(result.completion.values)
        field.model.setStringList(values)
        if values and field.edit.hasFocus():
            field.completer.complete()
        self.completions_shown.emit(field.name, values)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Entering an empty field asks at once, so the choices show before any typing."""
        if event.type() == QEvent.Type.FocusIn:
            for field in self._fields.values():
                if field.edit is watched and not field.edit.text() and not field.model.rowCount():
                    QTimer.singleShot(0, lambda name=field.name: self.request_completions(name))
        return super().eventFilter(watched, event)

    # -- actions ---------------------------------------------------------------------------

    def open_expanded(self) -> None:
        ref = self.expanded_ref()
        if ref is not None:
            self.open_requested.emit(ref)

    def _attach(self) -> None:
        ref = self.expanded_ref()
        if ref is not None:
            self.attach_requested.emit([ref])
