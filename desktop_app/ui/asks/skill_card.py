"""A skill, as the user sees it before its instructions join the conversation.

The card names the skill and the server offering it, lists its files with their sizes, says in
red which permissions its front matter asks for (never granted), which other servers offer
something at the same address (only this server's skill loads) and, when the user allowed an
earlier version, what changed since; then it shows the instructions themselves, read-only. Every
word of it is the server's, shown as plain text.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.core.content import human_size
from desktop_app.core.skills.consent import SkillDecision, SkillQuestion, SkillReply
from desktop_app.qt_kit.theme import danger, muted
from desktop_app.ui.asks.card import AskCard, Tone, escape
from desktop_app.ui.widgets.fitted_text import FittedText

MAX_LINES: Final = 10
FILES_SHOWN: Final = 8
OUTCOMES: Final = {
    SkillDecision.ALLOW_ONCE: "Loaded once",
    SkillDecision.ALLOW_CHAT: "Allowed for this chat",
    SkillDecision.ALLOW_ALWAYS: "Always allowed while its files stay the same",
    SkillDecision.DENY: "Not loaded",
}


def _plain(text: str) -> QLabel:
    label = QLabel(escape(text).replace("\n", "<br>"))
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    return label


class SkillCard(AskCard[SkillReply]):
    """Skill, server, files, what it asks for, its instructions; Load once / this chat / always / Don't load."""

    def __init__(self, question: SkillQuestion, parent: QWidget | None = None) -> None:
        title = f"<b>Load the skill {escape(question.name)} into this conversation?</b>"
        super().__init__(question, title, tone=Tone.CAUTION, parent=parent)
        self.question: SkillQuestion = question
        self.origin.setText(f"Offered by <b>{escape(question.server)}</b> · {escape(question.uri)}")
        self.description = _plain(question.description)
        self.changes = _plain(
            "It changed since you allowed it:\n" + "\n".join(f"• {change}" for change in question.changes)
        )
        self.changes.setObjectName("skillChanges")
        danger(self.changes)
        self.changes.setVisible(question.changed)
        self.asks_for = _plain(
            "\n".join(f"⚠ It asks for {asked}: MCP Desk never grants that" for asked in question.asks_for)
        )
        self.asks_for.setObjectName("skillAsksFor")
        danger(self.asks_for)
        self.asks_for.setVisible(bool(question.asks_for))
        self.also_offered = _plain(_also_offered(question))
        self.also_offered.setObjectName("skillAlsoOffered")
        danger(self.also_offered)
        self.also_offered.setVisible(bool(question.also_offered_by))
        files = [f"{f.uri}  ({human_size(f.size)})" for f in question.files[:FILES_SHOWN]]
        if len(question.files) > FILES_SHOWN:
            files.append(f"and {len(question.files) - FILES_SHOWN:,} more files")
        total = human_size(sum(f.size for f in question.files))
        self.files = _plain(f"{len(question.files)} file(s), {total}:\n" + "\n".join(files))
        muted(self.files)
        self.instructions = FittedText(question.preview, MAX_LINES, read_only=True)
        self.instructions.setObjectName("skillInstructions")
        self.instructions.setFont(QFont())
        self.instructions.refit()
        heading = _plain("What it asks the model to do (the server's words, checked against its digest):")
        muted(heading)
        self._shown = (
            self.description,
            self.also_offered,
            self.changes,
            self.asks_for,
            self.files,
            heading,
            self.instructions,
        )
        for widget in self._shown:
            self.body.addWidget(widget)
        self.load_once = self.add_button("&Load once", SkillReply(SkillDecision.ALLOW_ONCE), default=True)
        self.load_chat = self.add_button("For this &chat", SkillReply(SkillDecision.ALLOW_CHAT))
        self.load_always = self.add_button("Al&ways", SkillReply(SkillDecision.ALLOW_ALWAYS))
        self.load_always.setToolTip("Load it without asking while its files stay exactly as they are now.")
        self.deny = self.add_button("&Don't load", SkillReply(SkillDecision.DENY), right=True)

    def describe(self, reply: SkillReply) -> str:
        return f"{OUTCOMES[reply.decision]}: skill {self.question.name} from {self.question.server}"

    def collapse(self) -> None:
        for widget in self._shown:
            widget.hide()


def _also_offered(question: SkillQuestion) -> str:
    """The other servers at the skill's address: this card loads only the named server's skill."""
    others = ", ".join(question.also_offered_by)
    return (
        f"⚠ {others} also offer{'s' if len(question.also_offered_by) == 1 else ''} something at {question.uri}. "
        f"This loads the skill of {question.server} only."
    )
