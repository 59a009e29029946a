"""The approval card: the UI's side of the engine's `Approver`, inside the conversation.

Non-modal by design: the engine awaits a future the card resolves, so the event loop, the
stream of other servers and the rest of the window keep running while the user decides.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TypeVar, cast

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.asks.question import Question
from desktop_app.core.chat.approval import ApprovalReply, ApprovalRequest, Decision, validate_arguments
from desktop_app.ui.conversation.tool_card import fit_lines, pretty_json
from desktop_app.ui.style import ERROR_STYLE

R = TypeVar("R")


class ApprovalCard(QFrame):
    """Server, tool, description and editable arguments, with the four answers as buttons."""

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.reply: asyncio.Future[ApprovalReply] = asyncio.get_event_loop().create_future()
        self.setObjectName("approvalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#approvalCard { border: 2px solid #d9a21b; border-radius: 8px; }")
        title = QLabel(
            f"<b>Allow <code>{request.tool}</code> on <i>{request.server}</i>?</b>"
            " &nbsp;<span style='color:#8a8f98'>The model wants to run this tool.</span>"
        )
        self.description = QLabel(request.description or "(the server gives no description)")
        self.description.setWordWrap(True)
        self.description.setStyleSheet("color: #8a8f98;")
        self.arguments_label = QLabel("Arguments:")
        self.editor = QPlainTextEdit(pretty_json(request.arguments))
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        fit_lines(self.editor, self.editor.toPlainText(), 10)
        self.editor.setToolTip("You may edit the arguments before allowing; they are checked against the schema.")
        self.problem = QLabel(request.problem or "")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(ERROR_STYLE)
        self.problem.setVisible(bool(request.problem))

        self.allow_once = QPushButton("&Allow once")
        self.allow_chat = QPushButton("Allow for this &chat")
        self.allow_always = QPushButton("Al&ways allow")
        self.deny = QPushButton("&Deny")
        self.allow_once.setDefault(True)
        buttons = QHBoxLayout()
        for button in (self.allow_once, self.allow_chat, self.allow_always):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.deny)
        self.allow_once.clicked.connect(lambda: self._answer(Decision.ALLOW_ONCE))
        self.allow_chat.clicked.connect(lambda: self._answer(Decision.ALLOW_CHAT))
        self.allow_always.clicked.connect(lambda: self._answer(Decision.ALLOW_ALWAYS))
        self.deny.clicked.connect(lambda: self._answer(Decision.DENY))
        # Ctrl+Enter from inside the argument editor allows once, as in the composer.
        QShortcut(QKeySequence("Ctrl+Return"), self.editor, lambda: self._answer(Decision.ALLOW_ONCE))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(title)
        layout.addWidget(self.description)
        layout.addWidget(self.arguments_label)
        layout.addWidget(self.editor)
        layout.addWidget(self.problem)
        layout.addLayout(buttons)

    def focus(self) -> None:
        self.allow_once.setFocus(Qt.FocusReason.OtherFocusReason)

    def _answer(self, decision: Decision) -> None:
        if self.reply.done():
            return
        if decision is Decision.DENY:
            self._finish(ApprovalReply(Decision.DENY), "Denied")
            return
        try:
            edited = json.loads(self.editor.toPlainText())
        except json.JSONDecodeError as exc:
            self._show_problem(f"The arguments are not valid JSON: {exc.msg} (line {exc.lineno}).")
            return
        if edited != self.request.arguments:
            if (problem := validate_arguments(self.request.input_schema, edited)) is not None:
                self._show_problem(f"The edited arguments do not match the tool's schema: {problem}")
                return
            self._finish(ApprovalReply(decision, edited), "Allowed with your edits")
            return
        self._finish(
            ApprovalReply(decision),
            {
                Decision.ALLOW_ONCE: "Allowed once",
                Decision.ALLOW_CHAT: "Allowed for this chat",
                Decision.ALLOW_ALWAYS: "Always allowed (revoke in Settings)",
            }[decision],
        )

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(True)

    def _finish(self, reply: ApprovalReply, summary: str) -> None:
        self.reply.set_result(reply)
        for widget in (self.allow_once, self.allow_chat, self.allow_always, self.deny):
            widget.setEnabled(False)
            widget.hide()
        # Answered: shrink to one line; the tool card above shows the arguments that ran.
        self.editor.setReadOnly(True)
        self.editor.hide()
        self.arguments_label.hide()
        self.description.hide()
        self.problem.setText(summary)
        self.problem.setStyleSheet("color: #8a8f98;")
        self.problem.setVisible(True)
        self.setStyleSheet("#approvalCard { border: 1px solid rgba(127,127,127,90); border-radius: 8px; }")

    def cancel(self) -> None:
        """The turn was cancelled: the card stops waiting and says so."""
        if self.reply.done() and not self.reply.cancelled():
            return
        self.reply.cancel()
        for widget in (self.allow_once, self.allow_chat, self.allow_always, self.deny):
            widget.setEnabled(False)
        self.problem.setText("Cancelled")
        self.problem.setVisible(True)


class CardApprover:
    """Answers the policy's approval requests by placing an `ApprovalCard` and awaiting the answer."""

    def __init__(self, place: Callable[[ApprovalCard], object]) -> None:
        self._place = place
        self.pending: list[ApprovalCard] = []

    async def ask(self, question: Question[R]) -> R:
        if not isinstance(question, ApprovalRequest):
            return question.fallback()
        return cast(R, await self.approve(question))

    async def approve(self, request: ApprovalRequest) -> ApprovalReply:
        card = ApprovalCard(request)
        self._place(card)
        card.focus()
        self.pending.append(card)
        try:
            return await card.reply
        finally:
            card.cancel()
            self.pending.remove(card)
