"""The cards of an app view's questions: open a link, use a device. Both default to no."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel

from desktop_app.core.apps.questions import AppPermissionQuestion, OpenLinkQuestion
from desktop_app.qt_kit.theme import danger, muted
from desktop_app.ui.asks.card import AskCard, Tone
from desktop_app.ui.widgets.plain_text import plain_label


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class OpenLinkCard(AskCard[bool]):
    """Shows the whole address, unshortened, before anything opens in the browser."""

    def __init__(self, question: OpenLinkQuestion) -> None:
        super().__init__(question, "<b>Open this link in your browser?</b>", tone=Tone.CAUTION)
        self.origin.setText(f"Asked by the app <b>{_escape(question.app)}</b> of <i>{_escape(question.server)}</i>")
        self.url = plain_label(question.url)
        self.url.setWordWrap(True)
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.url.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.body.addWidget(self.url)
        for warning in question.warnings:  # as the URL elicitation card words them
            line = plain_label(f"⚠ {warning[:1].upper() + warning[1:]}")
            line.setWordWrap(True)
            line.setObjectName("linkWarning")
            danger(line)
            self.body.addWidget(line)
        self.open_button = self.add_button("Open link", True)
        self.keep_button = self.add_button("Don't open", False, default=True, right=True)

    def describe(self, reply: bool) -> str:
        return f"Opened {self.url.text()[:120]}" if reply else "Not opened"


class PermissionCard(AskCard[bool]):
    """A device, location or clipboard permission for one view; nothing is remembered."""

    def __init__(self, question: AppPermissionQuestion) -> None:
        tone = Tone.DANGER if question.permission in ("camera", "microphone", "camera+microphone") else Tone.CAUTION
        super().__init__(question, f"<b>Let the app {_escape(question.wording)}?</b>", tone=tone)
        self.origin.setText(f"Asked by the app <b>{_escape(question.app)}</b> of <i>{_escape(question.server)}</i>")
        lasting = "until it closes" if question.permission == "geolocation" else "only this time"
        note = QLabel(f"Only for this view, {lasting}. The app declared that it may ask.")
        muted(note)
        note.setWordWrap(True)
        self.body.addWidget(note)
        self.allow_button = self.add_button("Allow", True)
        self.deny_button = self.add_button("Deny", False, default=True, right=True)

    def describe(self, reply: bool) -> str:
        return "Allowed this time" if reply else "Denied"
