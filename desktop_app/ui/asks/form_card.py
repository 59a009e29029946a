"""The form a server asks the user to fill in (elicitation, form mode), drawn from its schema.

Submit sends the values (checked against the schema first, with the problem shown beside the
field); Decline is an explicit no; Cancel dismisses the question. The card says who asks and
why, and warns that servers must not ask for passwords or keys this way.

A form never fails silently: a field's problem shows once the user leaves it (an empty required
field only after Submit), follows each edit while shown and goes once fixed; Submit with problems
brings the first field that has one into view and puts the cursor in it.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFormLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.form_schema import FieldKind, field_problem
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.asks.card import AskCard, escape
from desktop_app.ui.asks.form_fields import FieldEditor, field_editor
from desktop_app.ui.widgets.style import error_label

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
        muted(self.warning)
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
                muted(note)
                notes.insert(0, note)
            for note in notes:
                note.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
                cell.addWidget(note)
            editor.watch(
                functools.partial(self._recheck, form_field.name), functools.partial(self._left, form_field.name)
            )
            boolean = form_field.kind is FieldKind.BOOLEAN  # a checkbox carries its own label
            label = "" if boolean else f"{escape(form_field.label)}{' *' if form_field.required else ''}"
            rows.addRow(label, cell)
        self.summary = error_label()
        self.summary.setObjectName("formProblems")
        self.summary.hide()
        self.body.addWidget(self.message)
        self.body.addWidget(self.form)
        self.body.addWidget(self.warning)
        self.body.addWidget(self.summary)
        self.submit = self.add_button("&Submit", default=True)
        self.submit.clicked.connect(self._submit)
        self.decline = self.add_button("&Decline", ElicitReply("decline"))
        self.cancel = self.add_button("Cancel", ElicitReply("cancel"), right=True)

    def values(self) -> dict[str, Any]:
        """What the form holds now (empty fields left out)."""
        values = {name: editor.value() for name, editor in self.editors.items()}
        return {name: value for name, value in values.items() if value is not None}

    def problem(self, name: str) -> str | None:
        """What is wrong with one field as it is now, or None."""
        editor = self.editors[name]
        return field_problem(editor.field, editor.value())

    def _show_problem(self, name: str, problem: str | None) -> None:
        label = self.problems[name]
        label.setText("" if problem is None else f"{self.editors[name].field.label} {problem}")
        label.setVisible(problem is not None)
        if self.summary.isVisibleTo(self):
            self._summarise()

    def _recheck(self, name: str) -> None:
        """An edit: a problem already shown follows it, and goes once fixed."""
        if self.problems[name].isVisibleTo(self):
            self._show_problem(name, self.problem(name))

    def _left(self, name: str) -> None:
        """The edit is complete: show what is wrong with what was entered (empty is judged at Submit)."""
        if self.editors[name].value() is not None or self.problems[name].isVisibleTo(self):
            self._show_problem(name, self.problem(name))

    def _summarise(self) -> None:
        wrong = sum(label.isVisibleTo(self) for label in self.problems.values())
        self.summary.setText(
            f"{'One field needs' if wrong == 1 else f'{wrong} fields need'} fixing before this can be sent."
        )
        self.summary.setVisible(wrong > 0)

    def _submit(self) -> None:
        values = self.values()
        problems = self.question.form.problems(values)
        for name in self.problems:
            self._show_problem(name, problems.get(name))
        self._summarise()
        first = next((name for name in self.editors if name in problems), None)
        if first is not None:
            self._bring_into_view(self.editors[first].widget)
            return
        self.answer(ElicitReply("accept", values))

    def _bring_into_view(self, widget: QWidget) -> None:
        """Put the cursor in `widget` and scroll every view the card sits in until it shows."""
        widget.setFocus(Qt.FocusReason.OtherFocusReason)

        def scroll() -> None:  # once the problems just shown are laid out
            parent = widget.parentWidget()
            while parent is not None:
                if isinstance(parent, QScrollArea):
                    parent.ensureWidgetVisible(widget, 20, 40)
                parent = parent.parentWidget()

        QTimer.singleShot(0, self, scroll)

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
