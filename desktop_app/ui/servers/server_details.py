"""The Servers panel's details of one server: its name and state, what it offers, signing in, and its actions.

What the server says it is (the serverInfo of its results) gets a line of its own, worded as its claim:
the name above is the one in the user's configuration, and that is what MCP Desk knows it by.

It only draws: `ServersPanel` wires its buttons to the bridge. Signing in gets a row of its own,
shown only when there is something to do; after a failed sign-in it offers Details… (each step of
the sign-in, with Copy), and while a sign-in waits for its browser, the paste fallback for a browser
that cannot reach this computer. Buttons flow onto a second line in a narrow dock.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.connection import ServerConnection
from desktop_app.core.connection.server_claim import ServerClaim
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.sandbox.denials import Denial
from desktop_app.core.server_status import ServerState
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.asks.sign_in_details import SignInDetails, show_sign_in_details
from desktop_app.ui.asks.sign_in_paste import PasteFallback
from desktop_app.ui.servers.instructions_note import InstructionsNote
from desktop_app.ui.widgets.plain_text import plain_label, set_plain_tooltip


def counts(catalog: ServerCatalog | None, disabled: tuple[str, ...] | frozenset[str] | set[str]) -> str:
    """ "3 resources · 1 template · …", and how many tools the user switched off."""
    if catalog is None:
        return "nothing listed yet"
    parts = [
        (len(catalog.resources), "resource"),
        (len(catalog.templates), "template"),
        (len(catalog.prompts), "prompt"),
        (len(catalog.tools), "tool"),
    ]
    text = " · ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in parts)
    off = sum(tool.name in disabled for tool in catalog.tools)
    return text + (f" ({off} switched off)" if off else "")


def claim_text(claim: ServerClaim | None) -> str:
    """ "Says it is: Acme Files 2.1 (the server's own claim)"; empty when it said nothing."""
    return f"Says it is: {claim.text} (the server's own claim)" if claim is not None else ""


def claim_tip(claim: ServerClaim | None, name: str) -> str:
    """The hover text: whose words these are, and the name MCP Desk really knows the server by."""
    if claim is None:
        return ""
    site = f"\nThe website it gives: {claim.website_url}" if claim.website_url else ""
    return (
        f"What the server's latest result said it is, in its own words: MCP Desk does not check it. "
        f"MCP Desk knows it as “{name}”, its name in your configuration.{site}"
    )


def blocked_text(refusal: Refusal) -> str:
    text = str(refusal)
    return f"{text[:1].upper()}{text[1:]}. MCP Desk does not start it: ask your administrator if you need it."


_CONFINED = (
    "Your files are read-only to it and your keys, browser profiles and MCP Desk's own files are hidden; it writes "
    "only where its entry allows"
)
_PROTECTION_TIPS = {
    "not sandboxed": "It runs as you: it can read your files and keys, write anywhere and reach any host. "
    "Set sandboxEnabled in its entry to confine it.",
    "sandboxed: bubblewrap": f"{_CONFINED}, and reaches only the hosts its entry lists (none unless it lists some).",
    "sandboxed: Landlock": f"{_CONFINED}, and reaches only the hosts its entry lists over TCP. Bubblewrap cannot run "
    "here, so Unix sockets and UDP are not filtered.",
    "sandboxed: Landlock — network not filtered": f"{_CONFINED}. This system's kernel cannot filter its network: "
    "it can reach any host.",
}


def _row(*buttons: QWidget) -> QWidget:
    """Buttons side by side while they fit, on more lines when the dock is narrow."""
    row = QWidget()
    flow = FlowLayout(row)
    flow.setContentsMargins(0, 0, 0, 0)
    for button in buttons:
        flow.addWidget(button)
    return row


class ServerDetails(QWidget):
    """What the panel shows of the selected server (`show_server`), above its questions and tabs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("serverTitle")
        # A server's name, version and stderr are text: never guessed to be markup and drawn.
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        title_font = self.title.font()
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.state = plain_label()
        self.state.setWordWrap(True)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.claim = plain_label()
        self.claim.setObjectName("serverClaim")
        self.claim.setWordWrap(True)
        muted(self.claim)
        self.claim.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.claim.hide()
        self._claim_shown: tuple[ServerClaim | None, str] = (None, "")
        self.protection = plain_label()
        self.protection.setObjectName("serverProtection")
        self.offer = QLabel()
        self.offer.setWordWrap(True)
        self.refused = plain_label()
        self.refused.setObjectName("sandboxRefused")
        self.refused.setWordWrap(True)
        self.allow = QPushButton("Allow…")
        self.allow.setObjectName("sandboxAllow")
        self.allow.setToolTip("Add exactly this to the server's entry and restart it (you confirm first)")
        self.denial: Denial | None = None
        """The one refusal the Allow… button would lift (the panel reads it when clicked)."""
        self.denial_row = QWidget()
        denial_layout = QHBoxLayout(self.denial_row)
        denial_layout.setContentsMargins(0, 0, 0, 0)
        denial_layout.addWidget(self.refused, 1)
        denial_layout.addWidget(self.allow)
        self.denial_row.hide()
        self.unavailable = plain_label()
        self.unavailable.setObjectName("sandboxUnavailable")
        self.unavailable.setWordWrap(True)
        self.run_once = QPushButton("Run without the sandbox this time")
        self.run_once.setObjectName("runUnconfinedOnce")
        self.run_once.setToolTip("Start it unconfined until MCP Desk quits; its entry stays sandboxed")
        self.run_always = QPushButton("…always")
        self.run_always.setObjectName("runUnconfinedAlways")
        self.run_always.setToolTip("Save its entry with sandboxEnabled off and start it unconfined")
        self.unavailable_row = QWidget()
        unavailable_layout = QVBoxLayout(self.unavailable_row)
        unavailable_layout.setContentsMargins(0, 0, 0, 0)
        unavailable_layout.addWidget(self.unavailable)
        unavailable_layout.addWidget(_row(self.run_once, self.run_always))
        self.unavailable_row.hide()
        self.instructions = InstructionsNote()
        self.sign_in = QPushButton("Sign in")
        self.sign_in.setObjectName("signIn")
        self.sign_in.setToolTip("Open the server's sign-in page in your browser")
        self.cancel_sign_in = QPushButton("Cancel sign-in")
        self.sign_out = QPushButton("Sign out")
        self.sign_out.setToolTip("Revoke the sign-in where the server allows it, and forget it here")
        self.sign_in_details = QPushButton("Details…")
        self.sign_in_details.setObjectName("signInDetails")
        self.sign_in_details.setToolTip("Each step of the last sign-in: its address, status and the server's words")
        self.sign_in_details.clicked.connect(self._show_sign_in_details)
        self.restart = QPushButton("Restart")
        self.toggle = QPushButton("Disable")
        self.edit = QPushButton("Edit…")
        self.remove = QPushButton("Remove")
        self.update_button = QPushButton()
        self.update_button.setObjectName("updateServer")
        self.update_row = QWidget()
        update_layout = QHBoxLayout(self.update_row)
        update_layout.setContentsMargins(0, 0, 0, 0)
        newer = QLabel("A newer version is in the registry.")
        newer.setWordWrap(True)
        update_layout.addWidget(newer, 1)
        update_layout.addWidget(self.update_button)
        self.update_row.hide()
        self.sign_in_bar = _row(self.sign_in, self.cancel_sign_in, self.sign_out, self.sign_in_details)
        self._paste_holder = QVBoxLayout()
        self._paste_holder.setContentsMargins(0, 0, 0, 0)
        self.paste: PasteFallback | None = None
        """The paste fallback of the server shown (each server's sign-in has its own)."""
        self._connection: ServerConnection | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.claim)
        layout.addWidget(self.state)
        layout.addWidget(self.protection)
        layout.addWidget(self.offer)
        layout.addWidget(self.denial_row)
        layout.addWidget(self.unavailable_row)
        layout.addWidget(self.instructions)
        layout.addWidget(self.sign_in_bar)
        layout.addLayout(self._paste_holder)
        layout.addWidget(_row(self.restart, self.toggle, self.edit, self.remove))
        layout.addWidget(self.update_row)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # a row, a note or the paste steps appeared or went
            self._hold_height()
        return handled

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._hold_height()

    def _hold_height(self) -> None:
        """Keep the height wrapped lines need at this width: the panel's splitter shrinks the list instead."""
        layout = self.layout()
        if layout is not None and layout.hasHeightForWidth():
            self.setMinimumHeight(layout.totalHeightForWidth(self.width()))

    def show_server(
        self,
        connection: ServerConnection | None,
        *,
        blocked: Refusal | None = None,
        trusted: bool = False,
        configured: bool = False,
        newer: str | None = None,
    ) -> None:
        """Show `connection` (None: no server selected) as it is now."""
        self._follow_paste(connection)
        self._connection = connection
        state = connection.status.state if connection is not None else None
        auth = connection.auth if connection is not None else None
        self.sign_in.setVisible(state is ServerState.NEEDS_SIGN_IN)
        self.cancel_sign_in.setVisible(state is ServerState.SIGNING_IN)
        self.sign_out.setVisible(auth is not None and state is not ServerState.SIGNING_IN and auth.signed_in)
        failed = auth is not None and auth.last_failure is not None and state is not ServerState.READY
        self.sign_in_details.setVisible(failed and auth is not None and auth.diagnosis is not None)
        self.sign_in_bar.setVisible(
            any(not b.isHidden() for b in (self.sign_in, self.cancel_sign_in, self.sign_out, self.sign_in_details))
        )
        for button in (self.restart, self.toggle, self.edit, self.remove):
            button.setEnabled(connection is not None)
        self.refresh_claim()
        if connection is None:
            self.update_row.hide()
            self.title.setText("No server selected")
            self.state.clear()
            self.protection.hide()
            self.offer.clear()
            self._show_denial(None)
            self.unavailable_row.hide()
            self.instructions.show_for(None, False)
            return
        info = connection.catalog.server_info if connection.catalog else None
        version = f"  {info.name} {info.version}" if info else ""
        self.title.setText(printable(f"{connection.name}{version}"))
        if blocked is not None:  # the rule in a line; what it says in full on hover and in the log
            self.state.setText(f"Blocked by your organisation's policy: {blocked.field}")
        else:
            self.state.setText(printable(connection.status.explained()))
        set_plain_tooltip(self.state, blocked_text(blocked) if blocked is not None else "")
        self.restart.setEnabled(blocked is None)
        set_plain_tooltip(self.restart, blocked_text(blocked) if blocked is not None else "")
        confinement = connection.confinement.protection(connection.config)
        self.protection.setText(f"Protection: {confinement}" if confinement else "")
        self.protection.setVisible(confinement is not None)
        set_plain_tooltip(self.protection, _PROTECTION_TIPS.get(confinement or "", ""))
        self.offer.setText(counts(connection.catalog, connection.config.disabled_tools))
        self._show_denial(connection.denials.offer if configured and blocked is None else None)
        self._show_unavailable(connection, configured)
        self.instructions.show_for(connection.catalog, trusted)
        self.toggle.setText("Enable" if connection.status.state is ServerState.DISABLED else "Disable")
        self.edit.setEnabled(configured)
        self.remove.setEnabled(configured)
        self.update_button.setText(f"Update to {newer}…" if newer else "")
        self.update_row.setVisible(newer is not None)

    def refresh_claim(self) -> None:
        """Show what the server last said it is (as plain text: it is the server's writing); the panel asks again
        at each of the server's log lines, since a changed claim always writes one."""
        connection = self._connection
        claim = connection.claim if connection is not None else None
        shown = (claim, connection.name if connection is not None else "")
        if shown != self._claim_shown:
            self._claim_shown = shown
            self.claim.setText(claim_text(claim))
            set_plain_tooltip(self.claim, claim_tip(*shown))
        self.claim.setVisible(claim is not None)

    def _show_denial(self, denial: Denial | None) -> None:
        """What the sandbox refused that the user may allow: one line, one button."""
        self.denial = denial
        self.denial_row.setVisible(denial is not None)
        if denial is None:
            self.refused.clear()
            return
        what = f"writing to {denial.target}" if denial.kind == "write" else f"a connection to {denial.target}"
        self.refused.setText(f"The sandbox refused {what} (not in {denial.key}).")

    def _show_unavailable(self, connection: ServerConnection, configured: bool) -> None:
        """A sandboxed server that cannot be confined here: why, and running it without the sandbox, where the
        organisation allows that (its problem is the probe's text, shown as plain text)."""
        confinement = connection.confinement
        failed = connection.status.state is ServerState.FAILED and confinement.unavailable is not None
        self.unavailable_row.setVisible(failed)
        if not failed:
            return
        if confinement.required is not None:
            self.unavailable.setText(
                f"Your organisation requires the sandbox ({confinement.required.field}): it starts once this system"
                f" can confine it. {confinement.unavailable}."
            )
        else:
            self.unavailable.setText(
                f"This system cannot sandbox it: {confinement.unavailable}. Without the sandbox it runs as you:"
                " it can read your files and keys and reach any host."
            )
        self.run_once.setVisible(confinement.offers_unconfined)
        self.run_always.setVisible(confinement.offers_unconfined and configured)

    def _follow_paste(self, connection: ServerConnection | None) -> None:
        """The paste fallback follows the shown server's sign-in (it shows itself while one waits)."""
        if self._connection is connection and (connection is None) == (self.paste is None):
            return
        if self.paste is not None:
            self.paste.deleteLater()
            self.paste = None
        if connection is not None:
            self.paste = PasteFallback(connection.auth.paste)
            self._paste_holder.addWidget(self.paste)

    def _show_sign_in_details(self) -> SignInDetails | None:
        connection = self._connection
        if connection is None:
            return None
        return show_sign_in_details(self, connection.name, connection.auth.diagnosis)
