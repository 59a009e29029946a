"""A web page a server asks the user to open (elicitation, URL mode): the full URL, its domain,
and the browser only when the user agrees.

Both are shown as the browser will read them (`core.asks.link_check`): a look-alike name in its
xn-- form and a `user@` part before the host each get a warning in red, and the page opened is
the address shown.

After "Open in browser" the card follows the flow: when the server reports it complete, the card
says so. If the server refused a tool call until the page is done, the call waits, and "I'm done"
lets the user say they finished when the server does not report it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import ClassVar, Final

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from desktop_app.core.asks.elicitation import ElicitReply, UrlQuestion
from desktop_app.ui.asks.card import MUTED, AskCard, Tone, escape
from desktop_app.ui.style import ERROR_STYLE

OUTCOMES: Final = {"decline": "Declined: the page was not opened", "cancel": "Cancelled: the page was not opened"}


class UrlCard(AskCard[ElicitReply]):
    """Message, domain, full URL; Open in browser / Decline / Cancel."""

    open_url: ClassVar[Callable[[QUrl], bool]] = QDesktopServices.openUrl
    """How a page is opened (tests replace it: nothing may start a browser there)."""

    def __init__(self, question: UrlQuestion, parent: QWidget | None = None) -> None:
        super().__init__(question, "<b>Open a web page?</b>", tone=Tone.CAUTION, parent=parent)
        self.question: UrlQuestion = question
        self.message = QLabel(escape(question.message).replace("\n", "<br>"))
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setWordWrap(True)
        link = question.link
        secure = link.url.startswith("https://")
        self.domain = QLabel(
            f"It goes to <b>{escape(link.host)}</b>"
            + ("" if secure else " <span style='color:#c0392b'>(on this computer, not encrypted: http)</span>")
        )
        self.domain.setTextFormat(Qt.TextFormat.RichText)
        self.warnings = QLabel("<br>".join(f"⚠ {escape(w[:1].upper() + w[1:])}" for w in link.warnings))
        self.warnings.setObjectName("linkWarnings")
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet(ERROR_STYLE)
        self.warnings.setVisible(bool(link.warnings))
        self.url = QLabel(escape(link.url))
        self.url.setObjectName("elicitationUrl")
        self.url.setWordWrap(True)
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.url.setStyleSheet(MUTED)
        self.url.setToolTip("The full address; nothing is opened until you choose Open in browser.")
        self.failed = QLabel()
        self.failed.setStyleSheet(ERROR_STYLE)
        self.failed.hide()
        for widget in (self.message, self.domain, self.warnings, self.url, self.failed):
            self.body.addWidget(widget)
        wary = bool(link.warnings)  # Enter must not open a page the card warns about
        self.open_page = self.add_button("&Open in browser", default=not wary)
        self.open_page.clicked.connect(self._open)
        self.decline = self.add_button("&Decline", ElicitReply("decline"), default=wary)
        self.cancel = self.add_button("Cancel", ElicitReply("cancel"), right=True)
        self.done = QPushButton("I'm done")
        self.done.setToolTip("Tell MCP Desk you finished in the browser, if the server has not reported it yet.")
        self.done.clicked.connect(self._user_done)
        self.done.hide()
        self.buttons.addWidget(self.done)
        self._follow: asyncio.Task[None] | None = None

    def _open(self) -> None:
        if not type(self).open_url(QUrl(self.question.link.url)):
            self.failed.setText("No browser could be opened; copy the address above instead.")
            self.failed.show()
        self.answer(ElicitReply("accept"))
        self._follow = asyncio.ensure_future(self._until_complete())
        if self.question.then_retry:
            self.done.show()
            self.done.setDefault(True)

    async def _until_complete(self) -> None:
        await self.question.completion.wait()
        with contextlib.suppress(RuntimeError):  # the card may be gone (a new chat) by then
            self.done.hide()
            self.outcome.setText(f"Done: the step on {self.question.domain} is complete")

    def _user_done(self) -> None:
        self.question.completion.set()

    def describe(self, reply: ElicitReply) -> str:
        if reply.action != "accept":
            return OUTCOMES[reply.action]
        if self.question.then_retry:
            return f"Opened {self.question.domain} in your browser; the tool call continues once you finish there"
        return f"Opened {self.question.domain} in your browser"

    def collapse(self) -> None:
        self.message.hide()
        self.domain.hide()
        self.warnings.hide()
