"""One native editor per elicitation field: text, dates, numbers, yes/no, one or several options.

Every editor starts at the server's default, can say "not set" for an optional field without
one, and hands back a JSON value (or None) for `FormField.check` to judge before anything is sent.
What the user typed is what is judged: a number out of bounds stays as typed and is shown as an
error, never quietly moved into range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import QDate, QDateTime, Qt, QTime
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDateTimeEdit,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QWidget,
)

from desktop_app.core.asks.form_schema import FieldKind, FormField, number_from_text, number_hint

NOT_SET: Final = "Not set"
NUMBER_WIDTH: Final = 220
MULTI_ROWS: Final = 6
_EARLIEST: Final = QDate(100, 1, 1)
"""The earliest date Qt's date editors take; it stands for "Not set"."""
_PLACEHOLDERS: Final = {"email": "name@example.com", "uri": "https://example.com"}


class FieldEditor:
    """A field's widget and how to read it."""

    def __init__(self, form_field: FormField, widget: QWidget) -> None:
        self.field = form_field
        self.widget = widget

    def value(self) -> Any:
        """The JSON value to send, or None when the user left the field empty."""
        raise NotImplementedError

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        """Call `changed` on every edit, `finished` once an edit is complete (the cursor left a text,
        a choice was made)."""
        raise NotImplementedError


class _Text(FieldEditor):
    def __init__(self, form_field: FormField) -> None:
        edit = QLineEdit()
        if form_field.max_length is not None:
            edit.setMaxLength(form_field.max_length)
        edit.setPlaceholderText(_PLACEHOLDERS.get(form_field.format or "", ""))
        if form_field.default is not None:
            edit.setText(form_field.default)
        super().__init__(form_field, edit)
        self._edit = edit

    def value(self) -> Any:
        return self._edit.text() or None

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        self._edit.textChanged.connect(lambda _text: changed())
        self._edit.editingFinished.connect(finished)


class _Date(FieldEditor):
    """`date` and `date-time`, with a calendar; an optional one without a default starts at "Not set"."""

    def __init__(self, form_field: FormField) -> None:
        with_time = form_field.format == "date-time"
        edit: QDateEdit | QDateTimeEdit = QDateTimeEdit() if with_time else QDateEdit()
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd HH:mm" if with_time else "yyyy-MM-dd")
        edit.setMinimumDate(_EARLIEST)
        edit.setSpecialValueText(NOT_SET)
        default = _parse_default(form_field.default, with_time)
        if default is not None:
            edit.setDateTime(default)
        elif form_field.required:
            edit.setDateTime(QDateTime(QDate.currentDate(), QTime(9, 0)))
        else:
            edit.setDate(edit.minimumDate())
        super().__init__(form_field, edit)
        self._edit = edit
        self._with_time = with_time

    def value(self) -> Any:
        if self._edit.date() == self._edit.minimumDate():
            return None
        if self._with_time:
            return (
                self._edit.dateTime()
                .toOffsetFromUtc(self._edit.dateTime().offsetFromUtc())
                .toString(Qt.DateFormat.ISODate)
            )
        return self._edit.date().toString("yyyy-MM-dd")

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        self._edit.dateTimeChanged.connect(lambda _when: changed())
        self._edit.editingFinished.connect(finished)


def _parse_default(default: Any, with_time: bool) -> QDateTime | None:
    if not isinstance(default, str):
        return None
    parsed = QDateTime.fromString(default, Qt.DateFormat.ISODate)
    if not parsed.isValid():
        parsed = QDateTime(QDate.fromString(default, "yyyy-MM-dd"), QTime(0, 0))
    return parsed if parsed.isValid() else None


class _Number(FieldEditor):
    """A number typed as text, its bounds in the placeholder; empty means "not set"."""

    def __init__(self, form_field: FormField) -> None:
        edit = QLineEdit()
        edit.setPlaceholderText(number_hint(form_field))
        if form_field.default is not None:
            edit.setText(str(form_field.default))
        edit.setAlignment(Qt.AlignmentFlag.AlignRight)
        edit.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        edit.setFixedWidth(max(NUMBER_WIDTH, edit.fontMetrics().horizontalAdvance(edit.placeholderText()) + 24))
        super().__init__(form_field, edit)
        self._edit = edit

    def value(self) -> Any:
        return number_from_text(self.field, self._edit.text())

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        self._edit.textChanged.connect(lambda _text: changed())
        self._edit.editingFinished.connect(finished)


class _Boolean(FieldEditor):
    def __init__(self, form_field: FormField) -> None:
        box = QCheckBox(form_field.label)
        box.setChecked(bool(form_field.default))
        super().__init__(form_field, box)
        self._box = box

    def value(self) -> Any:
        return self._box.isChecked()

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        self._box.toggled.connect(_both(changed, finished))


class _Choice(FieldEditor):
    def __init__(self, form_field: FormField) -> None:
        combo = QComboBox()
        if form_field.default is None:
            combo.addItem("Choose…" if form_field.required else NOT_SET, None)
        for option in form_field.options:
            combo.addItem(option.title, option.value)
        if form_field.default is not None:
            combo.setCurrentIndex(combo.findData(form_field.default))
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        super().__init__(form_field, combo)
        self._combo = combo

    def value(self) -> Any:
        return self._combo.currentData()

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        self._combo.currentIndexChanged.connect(_both(changed, finished))


class _Multi(FieldEditor):
    def __init__(self, form_field: FormField) -> None:
        options = QListWidget()
        options.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        chosen = set(form_field.default or [])
        for option in form_field.options:
            item = QListWidgetItem(option.title)
            item.setData(Qt.ItemDataRole.UserRole, option.value)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if option.value in chosen else Qt.CheckState.Unchecked)
            options.addItem(item)
        rows = min(len(form_field.options), MULTI_ROWS)
        options.setFixedHeight(options.sizeHintForRow(0) * rows + 2 * options.frameWidth() + 4)
        super().__init__(form_field, options)
        self._options = options

    def value(self) -> Any:
        items = [self._options.item(row) for row in range(self._options.count())]
        picked = [str(i.data(Qt.ItemDataRole.UserRole)) for i in items if i.checkState() == Qt.CheckState.Checked]
        return picked if picked or self.field.required else None

    def watch(self, changed: Callable[[], None], finished: Callable[[], None]) -> None:
        self._options.itemChanged.connect(_both(changed, finished))


def _both(changed: Callable[[], None], finished: Callable[[], None]) -> Callable[[object], None]:
    """For editors where one click is a whole edit: it changed, and the change is complete."""

    def both(_new: object) -> None:
        changed()
        finished()

    return both


def field_editor(form_field: FormField) -> FieldEditor:
    """The editor for one field of a form."""
    if form_field.kind is FieldKind.TEXT:
        return _Date(form_field) if form_field.format in ("date", "date-time") else _Text(form_field)
    if form_field.kind in (FieldKind.NUMBER, FieldKind.INTEGER):
        return _Number(form_field)
    if form_field.kind is FieldKind.BOOLEAN:
        return _Boolean(form_field)
    if form_field.kind is FieldKind.CHOICE:
        return _Choice(form_field)
    return _Multi(form_field)
