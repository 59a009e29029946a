"""The approval of one tool call: the window's card for an `ApprovalRequest`, inside the call's tool card.

It is a card of the ask family (`AskCard`), so it opens, times out and is withdrawn like every
other question; but for a call the model made it is embedded in that call's tool card (one card
per call: the arguments appear once, editable in place). Standing alone (an app view's call,
which has no tool card) it shows the tool's title, description and claims itself. When the user
allowed the tool before but it has changed since, the panel says so and shows what changed.
Answers the organisation's policy takes away ("for this chat", "always") are greyed, and a line
says which rule took them. Its answers are the live user's (`DecidedBy.USER`): a click or a key, now.

Keyboard: the panel takes the focus when it appears; Enter allows once (after a short delay, so
a keystroke meant for the composer cannot approve anything), Esc denies, Enter in the reason
field denies with that reason, Ctrl+Enter in the arguments allows once.
"""

from __future__ import annotations

import json
from typing import Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from desktop_app.core.chat.approval import (
    ApprovalReply,
    ApprovalRequest,
    DecidedBy,
    Decision,
    Requester,
    validate_arguments,
)
from desktop_app.qt_kit.theme import danger, muted, primary, tokens
from desktop_app.ui.asks.card import AskCard, Tone
from desktop_app.ui.conversation.approval_words import change_note, hint_badges, taint_note
from desktop_app.ui.conversation.tool_card import ARGUMENT_LINES, ToolCard, pretty_json
from desktop_app.ui.widgets.bordered_frame import CALM_BORDER
from desktop_app.ui.widgets.fitted_text import FittedText
from desktop_app.ui.widgets.plain_text import plain_label

ARM_DELAY_MS: Final = 600
"""Enter does nothing this long after the card appears (the user may have been typing elsewhere)."""
CHANGE_LINES: Final = 12
"""What changed in the tool is shown whole up to this many lines, then scrolls."""

_SUMMARIES: Final = {
    Decision.ALLOW_ONCE: "Allowed once",
    Decision.ALLOW_CHAT: "Allowed for this chat",
    Decision.ALLOW_ALWAYS: "Always allowed (revoke in Settings)",
}


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ApprovalPanel(AskCard[ApprovalReply]):
    """Arguments to check or edit, an optional reason, and the answers: once, this chat, always, deny."""

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        destructive = request.hints.claims_destructive
        who = "Allow"
        if request.requester is Requester.APP:
            who = f"The app <b>{_escape(request.app)}</b> wants to run" if request.app else "An app view wants to run"
        name = _escape(request.title or request.tool)
        super().__init__(
            request,
            f"{who} <b>{name}</b> on <b>{_escape(request.server)}</b>?",
            tone=Tone.DANGER if destructive else Tone.CAUTION,
            parent=parent,
        )
        self.request = request
        self.tone = Tone.DANGER if destructive else Tone.CAUTION
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._host: ToolCard | None = None
        self._armed = False
        self._focus_when_shown = False

        # Shown only when the panel stands alone (built when it is first shown so; a tool card shows these).
        self.description: QLabel | None = None
        self.claims: QWidget | None = None
        # Built only when there is something to show: a panel is built at every call the user is asked about.
        self.change: QLabel | None = None
        self.change_details: FittedText | None = None
        if request.change is not None:
            self.change = QLabel(change_note(request.change))
            self.change.setObjectName("changeNote")
            self.change.setWordWrap(True)
            self.change.setTextFormat(Qt.TextFormat.RichText)
            self.body.addWidget(self.change)
            # Plain text (what the server wrote is never markup), the same lines the command line prints.
            self.change_details = FittedText("\n".join(request.change.lines()), CHANGE_LINES)
            self.change_details.setObjectName("changeDetails")
            self.body.addWidget(self.change_details)
            self.body.addSpacing(6)  # apart from the arguments below, which look the same

        self.taint = QLabel()
        self.taint.setObjectName("taintNote")
        self.taint.setWordWrap(True)
        self.taint.setTextFormat(Qt.TextFormat.RichText)
        if request.under_taint and request.taint is not None:
            self.taint.setText(taint_note(request.taint, rule_paused=request.rule_paused))
        self.taint.setVisible(request.under_taint)
        self.body.addWidget(self.taint)

        self.editor = FittedText(pretty_json(request.arguments), ARGUMENT_LINES, read_only=False)
        self.editor.setObjectName("argumentsEditor")
        self.editor.setToolTip("The arguments the tool will get. Edit them here; they are checked against its schema.")
        self.body.addWidget(self.editor)
        self.problem = plain_label(request.problem or "")
        self.problem.setWordWrap(True)
        danger(self.problem)
        self.problem.setVisible(bool(request.problem))
        self.body.addWidget(self.problem)

        self.confirm: QFrame | None = None
        """"Always allow" of a destructive tool asks once more, here."""
        if destructive:
            self.confirm = self._confirm_always(name)
            self.body.addWidget(self.confirm)

        self.reason = QLineEdit()
        self.reason.setObjectName("denyReason")
        self.reason.setPlaceholderText("Reason if you deny (optional; the model reads it)")
        self.reason.setToolTip("One line for the model: why you deny the call. Enter here denies.")
        self.reason.setClearButtonEnabled(True)
        self.keys = QLabel("Enter allows once · Esc denies")
        muted(self.keys)
        self.keys.setWordWrap(True)  # in a narrow pane it takes two lines rather than widening the card
        reason_row = QHBoxLayout()
        reason_row.setContentsMargins(0, 0, 0, 0)
        reason_row.addWidget(self.reason, 1)
        reason_row.addWidget(self.keys)
        self.body.addLayout(reason_row)

        self.allow_once = primary(self.add_button("Allow once", default=True))
        self.allow_chat = self.add_button("Allow for this chat")
        self.allow_always = self.add_button("Always allow…" if destructive else "Always allow")
        self.deny = self.add_button("Deny", right=True)
        # Under taint a "for this chat" answer could not apply: it is not offered.
        self.allow_chat.setVisible(not request.under_taint)
        for decision, button in ((Decision.ALLOW_CHAT, self.allow_chat), (Decision.ALLOW_ALWAYS, self.allow_always)):
            if (why := request.refused.get(decision)) is not None:
                button.setEnabled(False)
                button.setToolTip(why[:1].upper() + why[1:])
        self.managed = plain_label(" · ".join(dict.fromkeys(w[:1].upper() + w[1:] for w in request.refused.values())))
        self.managed.setObjectName("managedNote")
        self.managed.setWordWrap(True)
        muted(self.managed)
        self.managed.setVisible(bool(request.refused))
        self.body.addWidget(self.managed)
        self.allow_once.clicked.connect(lambda: self._allow(Decision.ALLOW_ONCE))
        self.allow_chat.clicked.connect(lambda: self._allow(Decision.ALLOW_CHAT))
        self.allow_always.clicked.connect(lambda: self._allow(Decision.ALLOW_ALWAYS))
        self.deny.clicked.connect(self._deny)
        self.reason.returnPressed.connect(self._deny)
        QShortcut(QKeySequence("Ctrl+Return"), self.editor, lambda: self._allow(Decision.ALLOW_ONCE))
        QTimer.singleShot(ARM_DELAY_MS, self, self._arm)

    def _confirm_always(self, name: str) -> QFrame:
        confirm = QFrame()
        confirm.setObjectName("confirmAlways")
        row = QHBoxLayout(confirm)
        row.setContentsMargins(0, 0, 0, 0)
        warning = QLabel(
            f"<b>{name}</b> says it is destructive. Always allow it? It will then run without asking, in every chat."
        )
        warning.setWordWrap(True)
        self.confirm_yes = QPushButton("Yes, always allow")
        self.confirm_no = QPushButton("Cancel")
        row.addWidget(warning, 1)
        row.addWidget(self.confirm_yes)
        row.addWidget(self.confirm_no)
        confirm.hide()
        self.confirm_yes.clicked.connect(lambda: self._allow(Decision.ALLOW_ALWAYS, confirmed=True))
        self.confirm_no.clicked.connect(self._cancel_confirm)
        return confirm

    def _show_what_a_card_would(self) -> None:
        """Standing alone, the panel says what the tool is: its description and its server's claims."""
        request = self.request
        self.description = plain_label(request.description or "")
        self.description.setWordWrap(True)
        muted(self.description)
        self.description.setVisible(bool(request.description))
        self.body.insertWidget(0, self.description)
        self.claims = hint_badges(request.server, request.hints, request.trust.trusted)
        if self.claims is not None:
            self.body.insertWidget(1, self.claims)

    # -- placement -------------------------------------------------------------------------

    def embed_in(self, card: ToolCard) -> None:
        """Live inside `card`: no frame or header of its own; the card's border carries the tone."""
        self._host = card
        self.title.hide()
        self.origin.hide()
        for part in (self.description, self.claims):  # built only if it was shown standing alone first
            if part is not None:
                part.hide()
        self.set_border(CALM_BORDER, 0)  # the card's border carries the tone
        if (box := self.layout()) is not None:
            box.setContentsMargins(0, 2, 0, 0)
        card.embed(self)
        self._set_border(self.tone.colour(tokens()), 2)  # the theme's follower keeps it in the theme shown
        self.sig_answered.connect(lambda _reply: card.release())
        self.sig_withdrawn.connect(lambda _why: card.release())

    def _set_border(self, colour: QColor | str, width: int) -> None:
        host: ToolCard | None = getattr(self, "_host", None)  # not set yet while the base class builds the card
        if host is not None:
            host.set_border(colour, width)
        else:
            super()._set_border(colour, width)

    def focus(self) -> None:
        """Take the keyboard now, or as soon as the panel is shown (a card shows it after a moment)."""
        if self.isVisible():
            self.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self._focus_when_shown = True

    def setVisible(self, visible: bool) -> None:
        if visible and self._host is None and self.description is None:
            self._show_what_a_card_would()  # before it is shown, so they are shown with it
        super().setVisible(visible)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._focus_when_shown:
            self._focus_when_shown = False
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    @property
    def armed(self) -> bool:
        return self._armed

    def _arm(self) -> None:
        self._armed = True

    # -- answers ---------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Escape and self.open:
            if self.confirm is not None and self.confirm.isVisible():
                self._cancel_confirm()
            else:
                self._deny()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.open:
            if self._armed:
                self._allow(Decision.ALLOW_ONCE)
            return
        super().keyPressEvent(event)

    def _allow(self, decision: Decision, *, confirmed: bool = False) -> None:
        if not self.open or decision in self.request.refused:
            return
        try:
            edited = json.loads(self.editor.toPlainText())
        except json.JSONDecodeError as exc:
            self._show_problem(f"The arguments are not valid JSON: {exc.msg} (line {exc.lineno}).")
            return
        changed = edited != self.request.arguments
        if changed and (problem := validate_arguments(self.request.input_schema, edited)) is not None:
            self._show_problem(f"The edited arguments do not match the tool's schema: {problem}")
            return
        if decision is Decision.ALLOW_ALWAYS and self.confirm is not None and not confirmed:
            self.confirm.show()
            self.confirm_no.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        summary = _SUMMARIES[decision] + (", with your edits" if changed else "")
        self.answer(ApprovalReply(decision, edited if changed else None, by=DecidedBy.USER), summary)

    def _deny(self) -> None:
        reason = " ".join(self.reason.text().split())
        self.answer(
            ApprovalReply(Decision.DENY, reason=reason, by=DecidedBy.USER),
            f"Denied: “{reason}”" if reason else "Denied",
        )

    def _cancel_confirm(self) -> None:
        if self.confirm is not None:
            self.confirm.hide()
        self.allow_always.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(True)
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def describe(self, reply: ApprovalReply) -> str:
        return "Denied" if reply.decision is Decision.DENY else _SUMMARIES[reply.decision]

    def collapse(self) -> None:
        shown = (self.description, self.claims, self.change, self.change_details, self.taint, self.editor)
        for widget in (*shown, self.problem, self.confirm, self.managed, self.reason, self.keys):
            if widget is not None:
                widget.hide()
        self.editor.setReadOnly(True)
