"""Sampling, as the user sees it: may a server use your model for this prompt, and may the answer go back?

The consent card shows everything the model would get (the server's system prompt and messages,
editable, and each tool offered with its description and input schema), the model and the token
cap, and says when the server asked for the conversation too (never sent) or hid characters in its
text (taken out); the review card shows the model's answer (editable text, or the tool calls it
wants) before it is returned to the server.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFormLayout, QLabel, QPlainTextEdit, QWidget

from desktop_app.core.asks.sampling import (
    ReviewQuestion,
    ReviewReply,
    SamplingConsent,
    SamplingDecision,
    SamplingQuestion,
)
from desktop_app.qt_kit.theme import danger, muted
from desktop_app.ui.asks.card import AskCard, Tone, escape
from desktop_app.ui.widgets.fitted_text import FittedText

MAX_LINES: Final = 8
DECISIONS: Final = {
    SamplingDecision.ONCE: "Allowed once",
    SamplingDecision.CHAT: "Allowed for this chat",
    SamplingDecision.ALWAYS: "Always allowed for this server (revoke in Settings)",
    SamplingDecision.DENY: "Denied",
}


def _editor(text: str, *, editable: bool = True) -> QPlainTextEdit:
    """Prose in the window's font, as tall as its text up to `MAX_LINES`."""
    edit = FittedText(text, MAX_LINES, read_only=not editable)
    edit.setFont(QFont())
    edit.refit()
    return edit


class SamplingCard(AskCard[SamplingConsent]):
    """What the server wants the model to read, and the four answers."""

    def __init__(self, question: SamplingQuestion, parent: QWidget | None = None) -> None:
        super().__init__(question, "<b>Let this server use your model?</b>", tone=Tone.CAUTION, parent=parent)
        self.question: SamplingQuestion = question
        capped = question.requested_max_tokens > question.max_tokens
        limit = f"{question.max_tokens:,} tokens" + (
            f" (the server asked for {question.requested_max_tokens:,}; your limit applies)" if capped else ""
        )
        self.details = QWidget()
        facts = QFormLayout(self.details)
        facts.setContentsMargins(0, 0, 0, 0)
        facts.addRow("Model", QLabel(escape(question.model)))
        facts.addRow("Answer up to", QLabel(limit))
        self.tools: QPlainTextEdit | None = None
        if question.tools:
            described = "\n\n".join(
                f"{tool.name}: {tool.description or '(no description)'}\n  input: {tool.schema}"
                for tool in question.tools
            )
            self.tools = _editor(described, editable=False)
            facts.addRow("Tools offered", self.tools)
        self.system = _editor(question.system_prompt)
        self.system.setPlaceholderText("(no system prompt)")
        facts.addRow("System prompt", self.system)
        self.texts: dict[int, QPlainTextEdit] = {}
        for index, message in enumerate(question.messages):
            edit = _editor(message.text, editable=message.editable)
            if message.editable:
                self.texts[index] = edit
            facts.addRow(message.role.capitalize(), edit)
        self.note = QLabel("Only this goes to the model: nothing from your conversation. You may edit it first.")
        self.note.setWordWrap(True)
        muted(self.note)
        self.warnings = QLabel("<br>".join(escape(w) for w in _warnings(question)))
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        self.warnings.setWordWrap(True)
        danger(self.warnings)
        self.warnings.setVisible(bool(self.warnings.text()))
        self.body.addWidget(self.details)
        self.body.addWidget(self.warnings)
        self.body.addWidget(self.note)
        self.allow_once = self.add_button("&Allow once", default=True)
        self.allow_chat = self.add_button("Allow for this &chat")
        self.allow_always = self.add_button("Al&ways for this server")
        self.deny = self.add_button("&Deny", right=True)
        for button, decision in (
            (self.allow_once, SamplingDecision.ONCE),
            (self.allow_chat, SamplingDecision.CHAT),
            (self.allow_always, SamplingDecision.ALWAYS),
            (self.deny, SamplingDecision.DENY),
        ):
            button.clicked.connect(lambda _=False, d=decision: self._decide(d))

    def _decide(self, decision: SamplingDecision) -> None:
        if decision is SamplingDecision.DENY:
            self.answer(SamplingConsent(decision))
            return
        system = self.system.toPlainText()
        texts = {
            index: edit.toPlainText()
            for index, edit in self.texts.items()
            if edit.toPlainText() != self.question.messages[index].text
        }
        self.answer(
            SamplingConsent(
                decision,
                system_prompt=system if system != self.question.system_prompt else None,
                texts=texts or None,
            )
        )

    def describe(self, reply: SamplingConsent) -> str:
        edited = reply.system_prompt is not None or bool(reply.texts)
        return DECISIONS[reply.decision] + (" with your edits" if edited else "")

    def collapse(self) -> None:
        self.details.hide()
        self.warnings.hide()
        self.note.hide()


def _warnings(question: SamplingQuestion) -> list[str]:
    """What the server tried that the user should know of, though none of it reaches the model."""
    found = []
    if question.wanted_context:
        found.append(
            f"⚠ The server asked for your conversation too (includeContext: {question.wanted_context}). It is not sent."
        )
    if question.hidden:
        found.append(
            f"⚠ {question.hidden:,} invisible character(s) hid in the server's text; they were removed,"
            " so the model reads what you see."
        )
    return found


class ReviewCard(AskCard[ReviewReply]):
    """The model's answer to a server's prompt, to send back (edited, maybe) or keep."""

    def __init__(self, question: ReviewQuestion, parent: QWidget | None = None) -> None:
        super().__init__(question, "<b>Send the model's answer back to the server?</b>", parent=parent)
        self.question: ReviewQuestion = question
        self.origin.setText(f"Asked by <b>{escape(question.server)}</b> · answered by {escape(question.model)}")
        self.text = _editor(question.text, editable=not question.tool_uses)
        self.text.setVisible(bool(question.text) or not question.tool_uses)
        self.body.addWidget(self.text)
        self.calls: QLabel | None = None
        if question.tool_uses:
            lines = "<br>".join(
                f"Call <b>{escape(name)}</b> with <code>{escape(arguments)}</code>"
                for name, arguments in question.tool_uses
            )
            self.calls = QLabel(f"The model asks {escape(question.server)} to run its tools:<br>{lines}")
            self.calls.setTextFormat(Qt.TextFormat.RichText)
            self.calls.setWordWrap(True)
            self.body.addWidget(self.calls)
        self.send = self.add_button("&Send to server", default=True)
        self.send.clicked.connect(self._send)
        self.keep = self.add_button("&Don't send", ReviewReply(False), right=True)

    def _send(self) -> None:
        text = self.text.toPlainText()
        self.answer(ReviewReply(True, text if text != self.question.text else None))

    def describe(self, reply: ReviewReply) -> str:
        if not reply.send:
            return "Not sent: the server was told you declined"
        return "Sent with your edits" if reply.text is not None else "Sent to the server"

    def collapse(self) -> None:
        self.text.hide()
        if self.calls is not None:
            self.calls.hide()
