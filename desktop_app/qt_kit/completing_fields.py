"""Argument fields with server completions, shared by resource templates and prompts.

Completions are asked for about 250 ms after the user stops typing in a field, passing the
other filled-in fields as context; an answer that arrives after the field changed again is
dropped, so suggestions never lag behind the text. Enter on an open list picks the highlighted
value; only with no list open does Enter submit the form.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from mcp_types import PromptReference, ResourceTemplateReference
from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCompleter, QFormLayout, QLineEdit, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.server_errors import describe_error

log = logging.getLogger(__name__)

COMPLETION_DELAY_MS: Final = 250
Reference = PromptReference | ResourceTemplateReference


@dataclass(frozen=True)
class FieldSpec:
    name: str
    description: str | None = None
    required: bool = True


class _EnterPicks(QObject):
    """Enter (or Return) on an open completion list calls `pick` and goes no further."""

    def __init__(self, pick: Callable[[], None], popup: QWidget) -> None:
        super().__init__(popup)
        self._pick = pick

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(watched, QWidget) and watched.isVisible():
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._pick()
                return True
        return super().eventFilter(watched, event)


class _Field:
    """One argument's line edit, its completer and its pending completion request."""

    def __init__(self, spec: FieldSpec, owner: CompletingFields) -> None:
        self.spec = spec
        self.name = spec.name
        self.edit = QLineEdit()
        self.edit.setObjectName(f"argumentField_{spec.name}")
        self.edit.setPlaceholderText(spec.description or spec.name)
        self.edit.setToolTip(spec.description or "")
        self.model = QStringListModel()
        self.completer = QCompleter(self.model, self.edit)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.edit.setCompleter(self.completer)
        self.timer = QTimer(owner, singleShot=True, interval=COMPLETION_DELAY_MS)
        self.timer.timeout.connect(lambda: owner.request_completions(self.name))
        self.edit.textEdited.connect(lambda _text: self.timer.start())
        self.edit.textChanged.connect(lambda _text: owner.changed.emit())
        self.edit.returnPressed.connect(owner.submitted)
        self.edit.installEventFilter(owner)
        popup = self.completer.popup()
        assert popup is not None  # the completer makes its default list on first ask
        self.popup = popup
        # Installed after the completer's own filter, so it sees Enter on the list first. It is the
        # popup's child, so it lives exactly as long as the popup does.
        popup.installEventFilter(_EnterPicks(self.pick_highlighted, popup))
        self.serial = 0

    def pick_highlighted(self) -> None:
        """Enter on the open list: take the highlighted value (if any) and close the list, nothing more.

        Left to itself the completer passes Enter on to the line edit, which would submit the form.
        """
        index = self.popup.currentIndex()
        self.popup.hide()
        if index.isValid():
            self.edit.setText(str(index.data(self.completer.completionRole())))


class CompletingFields(QWidget):
    """A form of named fields completed by one server for one prompt or template."""

    changed = Signal()
    submitted = Signal()
    """Enter was pressed in a field with no completion list open."""
    completions_shown = Signal(str, list)
    """Field name and the values the server suggested for it."""

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._server = ""
        self._reference: Reference | None = None
        self._fields: dict[str, _Field] = {}
        self._form = QFormLayout(self)
        self._form.setContentsMargins(0, 0, 0, 0)

    def set_fields(self, server: str, reference: Reference, specs: list[FieldSpec]) -> None:
        """Replace the fields; they start empty and focus goes to the first."""
        self._server = server
        self._reference = reference
        while self._form.rowCount():
            self._form.removeRow(0)
        self._fields = {spec.name: _Field(spec, self) for spec in specs}
        for field in self._fields.values():
            label = f"{field.name}:" if field.spec.required else f"{field.name} (optional):"
            self._form.addRow(label, field.edit)
        if self._fields:
            next(iter(self._fields.values())).edit.setFocus()

    def names(self) -> list[str]:
        return list(self._fields)

    def field(self, name: str) -> QLineEdit:
        return self._fields[name].edit

    def suggestions(self, name: str) -> list[str]:
        """The server's latest completions for field `name`."""
        return self._fields[name].model.stringList()

    def values(self) -> dict[str, str]:
        return {name: field.edit.text().strip() for name, field in self._fields.items()}

    def missing(self) -> list[str]:
        """Required fields still empty."""
        return [name for name, field in self._fields.items() if field.spec.required and not field.edit.text().strip()]

    def request_completions(self, name: str) -> None:
        """Ask the server now (the debounce timer calls this) for values of field `name`."""
        field = self._fields.get(name)
        if field is None or self._reference is None:
            return
        field.serial += 1
        context = {k: v for k, v in self.values().items() if k != name and v}
        self._bridge.spawn(
            self._complete(self._server, self._reference, field, field.serial, field.edit.text(), context),
            f"Completing {name}",
        )

    async def _complete(
        self, server: str, reference: Reference, field: _Field, serial: int, value: str, context: dict[str, str]
    ) -> None:
        try:
            result = await self._bridge.host.connection(server).complete(reference, field.name, value, context or None)
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
                    QTimer.singleShot(0, self, lambda name=field.name: self.request_completions(name))
        return super().eventFilter(watched, event)
