"""The install form: one row per `Field` a package, remote or bundle asks for, and nothing else.

Secrets are typed blind, and each says where it will be kept (a plaintext store says it is not
encrypted); one already stored (an update) may be left empty to keep it. Choices become a list,
booleans a tick, paths a field with a Browse button, repeated values a box with one value per line.
`answers()` returns them in the shape `mcp-desk install --set` uses.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from desktop_app.core.registry.fields import Answers, Field
from desktop_app.core.registry.install import STORE_UNKNOWN, store_words
from desktop_app.core.secret_store import SecretBackend
from desktop_app.qt_kit.theme import coloured, muted

_KINDS = {"argument": "argument", "env": "environment variable", "header": "HTTP header", "variable": "", "option": ""}


def keep_stored(where: str) -> str:
    """The placeholder of a secret already stored (an update): where it is, and that empty keeps it."""
    return f"stored {where} — leave empty to keep"


class InstallForm(QWidget):
    """Draws `fields`; `answers()` reads them back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("installForm")
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._editors: dict[str, QWidget] = {}
        self._fields: list[Field] = []
        self.stored_where = STORE_UNKNOWN
        self.stored_encrypted = True
        self._store_words = STORE_UNKNOWN

    def set_store(self, store: SecretBackend | None) -> None:
        """Where secrets typed here will be kept (None: no store is open); call before `set_fields`."""
        self.stored_where = store.where if store is not None else STORE_UNKNOWN
        self.stored_encrypted = store.encrypted if store is not None else True
        self._store_words = store_words(store)

    @property
    def fields(self) -> list[Field]:
        return list(self._fields)

    def set_fields(
        self, fields: list[Field], prefill: Mapping[str, tuple[str, ...]] | None = None, stored: Collection[str] = ()
    ) -> None:
        """Rebuild the rows; `stored` lists the keys whose secret is already kept (updates)."""
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self._editors.clear()
        self._fields = list(fields)
        prefill = prefill or {}
        if not fields:
            empty = QLabel("Nothing to fill in: the publisher fixed every value.")
            muted(empty)
            self._layout.addRow(empty)
            return
        for item in fields:
            editor = self._editor(item, prefill.get(item.key, ()), item.key in stored)
            editor.setObjectName(f"field:{item.key}")
            self._editors[item.key] = editor
            label = QLabel(f"{item.label}{' *' if item.required and item.key not in stored else ''}")
            label.setToolTip(self._tooltip(item))
            label.setBuddy(editor)
            self._layout.addRow(label, editor)
            if item.description:
                note = QLabel(item.description)
                note.setWordWrap(True)
                muted(note)
                self._layout.addRow("", note)
        if not self.stored_encrypted and any(item.secret for item in fields):
            caution = QLabel(f"Secrets typed here are kept {self._store_words}.")
            caution.setTextFormat(Qt.TextFormat.PlainText)
            caution.setObjectName("installStoreCaution")
            caution.setWordWrap(True)
            coloured(caution, "caution")
            self._layout.addRow(caution)

    def _tooltip(self, item: Field) -> str:
        kind = _KINDS.get(item.kind, "")
        parts = [f"{kind} {item.key}".strip() if kind else item.key]
        if item.required:
            parts.append("required")
        if item.secret:
            parts.append(f"kept {self.stored_where}")
        return " · ".join(parts)

    def _editor(self, item: Field, given: tuple[str, ...], stored: bool) -> QWidget:
        initial = list(given) or ([] if item.default is None else [item.default])
        if item.choices:
            combo = QComboBox()
            if not item.required:
                combo.addItem("", "")
            for choice in item.choices:
                combo.addItem(choice, choice)
            combo.setCurrentIndex(max(0, combo.findData(initial[0] if initial else "")))
            return combo
        if item.format == "boolean":
            tick = QCheckBox()
            tick.setChecked(bool(initial) and initial[0].strip().lower() == "true")
            return tick
        if item.repeated:
            box = QPlainTextEdit("\n".join(initial))
            box.setPlaceholderText(item.placeholder or "one value per line")
            box.setTabChangesFocus(True)
            box.setFixedHeight(box.fontMetrics().lineSpacing() * 4 + 12)
            return box
        line = QLineEdit("" if item.secret else (initial[0] if initial else ""))
        if item.secret:
            line.setEchoMode(QLineEdit.EchoMode.Password)
            kept = keep_stored(self.stored_where) if stored else (item.placeholder or f"kept {self.stored_where}")
            line.setPlaceholderText(kept)
            line.setToolTip(kept)
        else:
            line.setPlaceholderText(item.placeholder or "")
        if item.format in ("filepath", "file", "directory"):
            return self._with_browse(line, directory=item.format == "directory")
        return line

    def _with_browse(self, line: QLineEdit, *, directory: bool) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(line, 1)
        browse = QPushButton("Browse…")
        layout.addWidget(browse)
        row.setProperty("line", line)

        def pick() -> None:
            dialog = QFileDialog(self, "Choose a folder" if directory else "Choose a file", line.text())
            dialog.setFileMode(QFileDialog.FileMode.Directory if directory else QFileDialog.FileMode.AnyFile)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.fileSelected.connect(line.setText)
            dialog.open()

        browse.clicked.connect(pick)
        return row

    def editor(self, key: str) -> QWidget:
        """The input for `key` (a line edit, list, tick or text box); tests type into it."""
        widget = self._editors[key]
        line = widget.property("line")
        return line if isinstance(line, QLineEdit) else widget

    def answers(self) -> Answers:
        """Every non-empty value by key (blank secrets are left out: stored ones are kept)."""
        out: dict[str, tuple[str, ...]] = {}
        for item in self._fields:
            widget = self.editor(item.key)
            if isinstance(widget, QComboBox):
                values = [str(widget.currentData() or "")]
            elif isinstance(widget, QCheckBox):
                values = ["true" if widget.isChecked() else "false"]
            elif isinstance(widget, QPlainTextEdit):
                values = widget.toPlainText().splitlines()
            else:
                assert isinstance(widget, QLineEdit)
                values = [widget.text()]
            values = [v.strip() for v in values if v.strip()]
            if values:
                out[item.key] = tuple(values)
        return out
