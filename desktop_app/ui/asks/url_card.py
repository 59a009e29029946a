"""A web page a server asks the user to open (elicitation, URL mode): the URL, its domain, and the
browser only when the user agrees. A long URL is shown in its short form (the host whole, the
path cut in the middle) with "Show full address" beside it; the whole URL is what is copied and opened.

Both are shown as the browser will read them (`core.asks.link_check`): a look-alike name in its
xn-- form and a `user@` part before the host each get a warning in red, and the page opened is
the address shown.

Nothing is said to have happened that did not: the server hears "accept" only once the page was
opened, by the desktop's browser or by the user (after "Copy address", they say so with "I opened
it"). Where no browser can be started, the card says so once and offers the copy instead.

After that the card follows the flow: when the server reports it complete, the card says so. If
the server refused a tool call until the page is done, the call waits, and "I'm done" lets the
user say they finished when the server does not report it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import ClassVar, Final

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from desktop_app.core.asks.elicitation import ElicitReply, UrlQuestion
from desktop_app.qt_kit.theme import danger, muted, themed_text
from desktop_app.ui.asks.card import AskCard, Tone, escape

OUTCOMES: Final = {"decline": "Declined: the page was not opened", "cancel": "Cancelled: the page was not opened"}
NO_BROWSER: Final = (
    "No web browser could be started from MCP Desk. Copy the address, open it in a browser yourself"
    ' (on this computer or another device), then choose "I opened it".'
)


class UrlCard(AskCard[ElicitReply]):
    """Message, domain, full URL; Open in browser / Copy address (then I opened it) / Decline / Cancel."""

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
        self.domain = QLabel()
        unencrypted = " <span style='color:{}'>(on this computer, not encrypted: http)</span>"
        themed_text(
            self.domain,
            lambda p: f"It goes to <b>{escape(link.host)}</b>" + ("" if secure else unencrypted.format(p.danger)),
        )
        self.domain.setTextFormat(Qt.TextFormat.RichText)
        self.warnings = QLabel("<br>".join(f"⚠ {escape(w[:1].upper() + w[1:])}" for w in link.warnings))
        self.warnings.setObjectName("linkWarnings")
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        self.warnings.setWordWrap(True)
        danger(self.warnings)
        self.warnings.setVisible(bool(link.warnings))
        self.url = QLabel(link.short)
        self.url.setObjectName("elicitationUrl")
        self.url.setTextFormat(Qt.TextFormat.PlainText)  # the address as it is: no "&amp;" where it has "&"
        self.url.setWordWrap(True)
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        muted(self.url)
        self.url.setToolTip("The address; nothing is opened until you choose Open in browser.")
        self.show_full = QPushButton(f"Show full address ({len(link.url):,} characters)")
        self.show_full.setFlat(True)
        self.show_full.setToolTip("The address above is shortened in the middle; its host is shown whole.")
        self.show_full.clicked.connect(self._show_full)
        self.show_full.setVisible(link.short != link.url)
        self.failed = QLabel(NO_BROWSER)
        self.failed.setObjectName("noBrowser")
        self.failed.setWordWrap(True)
        danger(self.failed)
        self.failed.hide()
        for widget in (self.message, self.domain, self.warnings, self.url, self.show_full, self.failed):
            self.body.addWidget(widget)
        wary = bool(link.warnings)  # Enter must not open a page the card warns about
        self.open_page = self.add_button("&Open in browser", default=not wary)
        self.open_page.clicked.connect(self._open)
        self.copy = self.add_button("Cop&y address")
        self.copy.setToolTip("Put the full address on the clipboard, to open it in a browser yourself.")
        self.copy.clicked.connect(self._copy)
        self.opened_myself = self.add_button("I opened &it")
        self.opened_myself.setToolTip("Tell the server you opened the page yourself.")
        self.opened_myself.clicked.connect(lambda: self._accept(by_user=True))
        self.opened_myself.hide()
        self.decline = self.add_button("&Decline", ElicitReply("decline"), default=wary)
        self.cancel = self.add_button("Cancel", ElicitReply("cancel"), right=True)
        self.done = QPushButton("I'm done")
        self.done.setToolTip("Tell MCP Desk you finished in the browser, if the server has not reported it yet.")
        self.done.clicked.connect(self._user_done)
        self.done.hide()
        self.buttons.addWidget(self.done)
        self._follow: asyncio.Task[None] | None = None
        self._by_user = False
        """The user opened the page themselves (no browser here, or by choice)."""
        self._said_done = False

    def _show_full(self) -> None:
        self.url.setText(self.question.link.url)
        self.show_full.hide()

    def _open(self) -> None:
        if type(self).open_url(QUrl(self.question.link.url)):
            self._accept(by_user=False)
            return
        # One state: the failure, the copy and the user's own word; nothing is answered yet.
        self.open_page.hide()
        self.failed.show()
        self.opened_myself.show()
        self.copy.setDefault(True)
        self.copy.setFocus(Qt.FocusReason.OtherFocusReason)

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.question.link.url)
        self.copy.setText("Copied")
        self.opened_myself.show()
        if not self.open_page.isVisibleTo(self):  # no browser here: copying was the way, saying so is next
            self.opened_myself.setDefault(True)
            self.opened_myself.setFocus(Qt.FocusReason.OtherFocusReason)

    def _accept(self, *, by_user: bool) -> None:
        self._by_user = by_user
        self.answer(ElicitReply("accept"))
        self._follow = asyncio.ensure_future(self._until_complete())
        if self.question.then_retry:
            self.done.show()
            self.done.setDefault(True)

    async def _until_complete(self) -> None:
        await self.question.completion.wait()
        with contextlib.suppress(RuntimeError):  # the card may be gone (a new chat) by then
            self.done.hide()
            domain = self.question.domain
            said = f"Done: you said the step on {domain} is finished" if self._said_done else ""
            self.outcome.setText(said or f"Done: {self.question.server} reports the step on {domain} complete")

    def _user_done(self) -> None:
        self._said_done = True
        self.question.completion.set()

    def describe(self, reply: ElicitReply) -> str:
        if reply.action != "accept":
            return OUTCOMES[reply.action]
        domain = self.question.domain
        opened = f"You opened {domain} yourself" if self._by_user else f"Opened {domain} in your browser"
        if self.question.then_retry:
            return f"{opened}; the tool call continues once you finish there"
        return opened

    def collapse(self) -> None:
        self.message.hide()
        self.domain.hide()
        self.warnings.hide()
        self.show_full.hide()
        self.failed.hide()
