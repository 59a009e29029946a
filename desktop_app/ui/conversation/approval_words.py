"""How the window words approvals: annotation badges, who decided a call, why a card asks again."""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.core.chat.approval import DecidedBy, Decision
from desktop_app.core.chat.events import ToolDecision
from desktop_app.core.tool_changes import ToolChange
from desktop_app.core.trust import ToolHints
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import LIGHT, SPACE, Palette

DANGER_COLOUR: Final = LIGHT.danger
"""A destructive claim's colour in the light theme (the dark one has its own token)."""

HINT_TIPS: Final = {
    "read-only": "only reads; it changes nothing",
    "destructive": "may delete or overwrite things",
    "additive": "only adds things; it never deletes or overwrites",
    "idempotent": "calling it again with the same arguments has no further effect",
    "open world": "reaches outside systems (such as the web); its results may contain anything",
    "closed world": "works only within its own data",
}
_HINT_COLOURS: Final = {"read-only": "success", "destructive": "danger", "open world": "caution"}
"""The token each claim is drawn in; the rest are muted."""


def _claims_sheet(p: Palette) -> str:
    """One sheet for the whole row (a sheet per badge cost a polish each, at every tool call): its words
    muted, each claim framed in its token's colour."""
    coloured = " ".join(
        f'QLabel#hintBadge[role="{role}"] {{ color: {getattr(p, role)}; border-color: {getattr(p, role)}; }}'
        for role in sorted(set(_HINT_COLOURS.values()))
    )
    return (
        f"QLabel {{ color: {p.muted}; }} QLabel#hintBadge {{ border: 1px solid {p.muted};"
        f" border-radius: {SPACE.radius - 1}px; padding: 0px {SPACE.m - 2}px; }} {coloured}"
    )


def hint_badges(server: str, hints: ToolHints | None, trusted: bool) -> QWidget | None:
    """A row "<server> says: [read-only] [idempotent]", or None when the server claims nothing.

    Its parts wrap like words, so a narrow column shows every claim instead of cutting the row.
    """
    claims = hints.claims() if hints is not None else []
    if not claims:
        return None
    row = QWidget()
    row.setObjectName("hintBadges")
    themed(row, _claims_sheet)
    layout = FlowLayout(row, spacing=4)
    said = QLabel(f"{_escape(server)} says:")
    said.setToolTip(
        "These are the server's own claims about the tool (MCP annotations)."
        + (
            " You trust this server, so MCP Desk relies on them."
            if trusted
            else " You have not marked this server as trusted, so MCP Desk does not rely on them"
            " (except to be more careful)."
        )
    )
    layout.addWidget(said)
    for claim in claims:
        # An untrusted server's "read-only" is not relied on, so it does not get the reassuring green.
        role = _HINT_COLOURS.get(claim, "muted") if trusted or claim != "read-only" else "muted"
        badge = QLabel(claim)
        badge.setObjectName("hintBadge")
        badge.setToolTip(f"The server says this tool {HINT_TIPS[claim]}.")
        badge.setProperty("role", role)
        layout.addWidget(badge)
    if not trusted:
        unverified = QLabel("(not verified)")
        unverified.setToolTip(said.toolTip())
        layout.addWidget(unverified)
    return row


_RULES: Final = {
    DecidedBy.RULE: "Allowed by your rule: always allow this tool (revoke in Settings)",
    DecidedBy.SERVER_RULE: "Allowed by your rule: this trusted server's read-only tools run without asking",
    DecidedBy.CHAT: "Allowed: you allowed this tool for this chat",
}
_ANSWERS: Final = {
    Decision.ALLOW_ONCE: "Allowed once by you",
    Decision.ALLOW_CHAT: "Allowed by you for this chat",
    Decision.ALLOW_ALWAYS: "Always allowed by you (revoke in Settings)",
}


def decision_line(event: ToolDecision) -> str:
    """One line saying how the call was settled and by whom, e.g. "Denied by you: not that file"."""
    by = DecidedBy(event.decided_by)
    if by in _RULES:
        return _RULES[by]
    if by is DecidedBy.NOBODY:
        return "Denied: nobody answered in time"
    if by is DecidedBy.FLAG:
        return "Allowed by --approve" if event.allowed else "Denied by --approve"
    if not event.allowed:
        text = f"Denied by you: “{event.reason}”" if event.reason else "Denied by you"
    else:
        text = _ANSWERS.get(Decision(event.decision or Decision.ALLOW_ONCE), "Allowed by you")
        if event.edited:
            text += ", with your edits to the arguments"
    if event.rule_paused:
        text += " · asked again because untrusted content is in this chat"
    return text


def taint_note(taint: str, *, rule_paused: bool) -> str:
    """What an approval asked under taint says above its arguments."""
    paused = " Your rule for this tool is paused in this chat." if rule_paused else ""
    return (
        f"⚠ <b>Untrusted content is in this conversation</b>: {_escape(taint)}. It may be steering the"
        f" model, so check that this call is what you want.{paused}"
    )


def change_note(change: ToolChange) -> str:
    """What an approval asked because the tool changed says above the change itself."""
    if change.earlier_known:
        parts = change.parts[0] if len(change.parts) == 1 else ", ".join(change.parts[:-1]) + " and " + change.parts[-1]
        what = f"The server changed this tool's {parts}."
    else:
        what = "The server changed this tool."
    return (
        f"⚠ <b>Changed since you allowed it.</b> {what} Your earlier permission does not cover it:"
        " check what it does now before you allow it again."
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
