"""The form a server asks the user to fill in (elicitation, form mode), drawn from its schema.

Submit sends the values (checked against the schema first, with the problem shown beside the
field); Decline is an explicit no; Cancel dismisses the question. The card says who asks and
why, and warns that servers must not ask for passwords or keys this way.
"""

from __future__ import annotations

from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.form_schema import FieldKind
from desktop_app.ui.asks.card import MUTED, AskCard, escape
from desktop_app.ui.asks.form_fields import FieldEditor, field_editor
from desktop_app.ui.style import error_label

NO_SECRETS: Final = "Never enter passwords, API keys or other secrets here: servers must not ask for them this way."
OUTCOMES: Final = {"accept": "Sent to {server}", "decline": "Declined", "cancel": "Cancelled"}


class FormCard(AskCard[ElicitReply]):
    """A server's form: one native editor per field, the server's message, Submit / Decline / Cancel."""

    def __init__(self, question: FormQuestion, parent: QWidget | None = None) -> None:
        super().__init__(question, "<b>Please fill in this form</b>", parent=parent)
        self.question: FormQuestion = question
        self.message = QLabel(escape(question.message).replace("\n", "<br>"))
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warning = QLabel(NO_SECRETS)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(MUTED)
        self.editors: dict[str, FieldEditor] = {}
        self.problems: dict[str, QLabel] = {}
        self.form = QWidget()
        rows = QFormLayout(self.form)
        rows.setContentsMargins(0, 4, 0, 4)
        rows.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        rows.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        for form_field in question.form.fields:
            editor = field_editor(form_field)
            self.editors[form_field.name] = editor
            problem = error_label()
            problem.hide()
            self.problems[form_field.name] = problem
            cell = QVBoxLayout()
            cell.setSpacing(2)
            # A short editor (a drop-down, a number) keeps its width; the notes under it take the row's
            # width, so they wrap where the row ends, not at the editor's edge.
            grows = bool(editor.widget.sizePolicy().expandingDirections() & Qt.Orientation.Horizontal)
            cell.addWidget(editor.widget, 0, Qt.AlignmentFlag(0) if grows else Qt.AlignmentFlag.AlignLeft)
            notes = [problem]
            if form_field.description:
                note = QLabel(escape(form_field.description))
                note.setWordWrap(True)
                note.setStyleSheet(MUTED)
                notes.insert(0, note)
            for note in notes:
                note.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
                cell.addWidget(note)
            boolean = form_field.kind is FieldKind.BOOLEAN  # a checkbox carries its own label
            label = "" if boolean else f"{escape(form_field.label)}{' *' if form_field.required else ''}"
            rows.addRow(label, cell)
        self.body.addWidget(self.message)
        self.body.addWidget(self.form)
        self.body.addWidget(self.warning)
        self.submit = self.add_button("&Submit", default=True)
        self.submit.clicked.connect(self._submit)
        self.decline = self.add_button("&Decline", ElicitReply("decline"))
        self.cancel = self.add_button("Cancel", ElicitReply("cancel"), right=True)

    def values(self) -> dict[str, Any]:
        """What the form holds now (empty fields left out)."""
        values = {name: editor.value() for name, editor in self.editors.items()}
        return {name: value for name, value in values.items() if value is not None}

    def _submit(self) -> None:
        values = self.values()
        problems = self.question.form.problems(values)
        for name, label in self.problems.items():
            label.setText(f"{self.editors[name].field.label} {problems[name]}" if name in problems else "")
            label.setVisible(name in problems)
        if problems:
            self.editors[next(iter(problems))].widget.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        self.answer(ElicitReply("accept", values))

    def focus(self) -> None:
        first = next(iter(self.editors.values()), None)
        if first is not None:
            first.widget.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            super().focus()

    def describe(self, reply: ElicitReply) -> str:
        return OUTCOMES[reply.action].format(server=self.question.server)

    def collapse(self) -> None:
        self.form.hide()
        self.warning.hide()
