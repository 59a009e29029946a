"""The sign-in card: a tool call met a server that wants the user to sign in first.

It asks (Sign in / Not now), then stays to show how the sign-in goes: waiting for the browser
(with Cancel), signed in, or why not. The sign-in itself is the core's; the card only follows
the server's state through the bridge.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.asks.card import AskCard, Tone, escape
from desktop_app.ui.asks.sign_in_details import show_sign_in_details
from desktop_app.ui.asks.sign_in_paste import PasteFallback

WAITING = "Waiting for the browser… finish signing in there."


class SignInCard(AskCard[bool]):
    """Sign in to a server so the tool call can go on."""

    def __init__(self, question: SignInQuestion, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        name = escape(question.server)
        if question.scopes:
            title = f"<b>{name}</b> asks for more permissions to run this tool"
        else:
            title = f"Sign in to <b>{name}</b> to run this tool"
        super().__init__(question, title, tone=Tone.INFO, parent=parent)
        self._bridge = bridge
        self.origin.setText("MCP Desk opens the sign-in page in your browser.")
        detail = question.reason or ""
        if question.scopes:
            detail = "It asks for: " + ", ".join(question.scopes)
        self.detail = QLabel(detail[:1].upper() + detail[1:] if detail else "")
        self.detail.setWordWrap(True)
        muted(self.detail)
        self.detail.setVisible(bool(detail))
        self.body.addWidget(self.detail)
        self.sign_in = self.add_button("Sign in", True, default=True)
        self.not_now = self.add_button("Not now", False, right=True)
        self.cancel = QPushButton("Cancel sign-in")
        self.cancel.hide()
        self.cancel.clicked.connect(lambda: bridge.cancel_sign_in(question.server))
        frame = self.layout()
        assert isinstance(frame, QVBoxLayout)
        frame.addWidget(self.cancel, 0, Qt.AlignmentFlag.AlignLeft)
        auth = bridge.host.connection(question.server).auth
        self.paste = PasteFallback(auth.paste)  # a browser that cannot reach this computer
        frame.addWidget(self.paste)
        self.details = QPushButton("Details")
        self.details.setToolTip("Each step of the sign-in: its address, status and the server's own words")
        self.details.hide()
        self.details.clicked.connect(lambda: show_sign_in_details(self, question.server, auth.diagnosis))
        frame.addWidget(self.details, 0, Qt.AlignmentFlag.AlignLeft)
        self.sig_answered.connect(self._follow)

    def describe(self, reply: bool) -> str:
        return WAITING if reply else "Not signed in: the tool is unavailable."

    def collapse(self) -> None:
        self.detail.hide()

    def _follow(self, reply: object) -> None:
        if reply is True:
            self.cancel.show()
            self._bridge.server_state_changed.connect(self._on_state)

    def _on_state(self, name: str, status: ServerStatus) -> None:
        if name != self.question.server:
            return
        if status.state is ServerState.SIGNING_IN:
            self.outcome.setText(WAITING)
            return
        failure = self._bridge.host.connection(name).auth.last_failure
        if failure is None and status.state is ServerState.STARTING:
            self.outcome.setText("Signed in; connecting…")
            return
        if failure is not None:
            self.outcome.setText(f"Not signed in: {failure}.")
            self.details.show()
        elif status.state is ServerState.READY:
            self.outcome.setText("Signed in.")
        else:
            self.outcome.setText(status.summary)
        self.cancel.hide()
        self._bridge.server_state_changed.disconnect(self._on_state)
