"""The install form: one row per `Field` a package, remote or bundle asks for, and nothing else.

Secrets are typed blind; one already in the secret store (an update) may be left empty to keep
it. Choices become a list, booleans a tick, paths a field with a Browse button, repeated values a
box with one value per line. `answers()` returns them in the shape `mcp-desk install --set` uses.
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
from desktop_app.ui.asks.card import MUTED

_KINDS = {"argument": "argument", "env": "environment variable", "header": "HTTP header", "variable": "", "option": ""}
KEEP_STORED = "stored in the secret store — leave empty to keep"


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
            empty.setStyleSheet(MUTED)
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
                note.setStyleSheet(MUTED)
                self._layout.addRow("", note)

    @staticmethod
    def _tooltip(item: Field) -> str:
        kind = _KINDS.get(item.kind, "")
        parts = [f"{kind} {item.key}".strip() if kind else item.key]
        if item.required:
            parts.append("required")
        if item.secret:
            parts.append("kept in the secret store")
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
            line.setPlaceholderText(KEEP_STORED if stored else (item.placeholder or "kept in the secret store"))
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
