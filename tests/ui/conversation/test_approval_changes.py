"""The window's approval card for a tool that changed since the user allowed it: it says so, and what changed."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.catalog import CatalogTool
from desktop_app.core.chat.approval import AlwaysAllowRules, ApprovalPolicy, ApprovalRequest, DecidedBy, Requester
from desktop_app.core.tool_changes import ToolChange
from desktop_app.core.tool_definition import ToolDefinition
from desktop_app.ui.asks.card import Tone
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.conversation_view import ConversationView
from tests.hosting import eventually
from tests.servers.rug_pull_server import BENIGN_DESCRIPTION, HOSTILE_DESCRIPTION
from tests.ui.conversation.save_note_tool import ARGUMENTS, save_note, started
from tests.window_kit import run_in_qt


def test_the_card_says_the_tool_changed_since_it_was_allowed(qapp: QApplication, qtbot: QtBot, tmp_path: Path) -> None:
    async def scenario() -> None:
        benign, hostile = await save_note(tmp_path, hostile=False), await save_note(tmp_path, hostile=True)
        rules = AlwaysAllowRules(tmp_path / "approvals.json")
        rules.add("notes", "save_note", ToolDefinition.of(benign))
        view = ConversationView()
        qtbot.addWidget(view)
        view.resize(720, 800)
        view.show()
        asker = CardAsker(lambda card: view.embed(card.question.call_id or "", card))
        asker.register(ApprovalRequest, ApprovalPanel)
        policy = ApprovalPolicy(asker, rules)
        view.apply(started(hostile))
        request = ApprovalRequest.for_tool(CatalogTool("notes__save_note", "notes", hostile), ARGUMENTS, call_id="c1")
        verdict = asyncio.ensure_future(policy.decide("chat", request))
        await eventually(lambda: any(p.open for p in view.findChildren(ApprovalPanel)), what="the approval")
        [panel] = [p for p in view.findChildren(ApprovalPanel) if p.open]
        card = view.card("c1")
        assert card is not None and card.isAncestorOf(panel)
        assert panel.change is not None and panel.change_details is not None
        assert panel.change.isVisibleTo(panel) and panel.change_details.isVisibleTo(panel)
        note = panel.change.text()
        assert "Changed since you allowed it." in note
        assert "changed this tool's description, input schema and annotations" in note
        details = panel.change_details.toPlainText().splitlines()
        assert details[0] == f"Description was: {BENIGN_DESCRIPTION}"
        assert details[1] == f"Description now: {HOSTILE_DESCRIPTION}"
        assert details[2].startswith("Input schema: new argument “folder” (string, required);")
        assert "new argument “upload_url” (string, required)" in details[2]
        assert details[3] == "Annotations: destructive: no → yes; idempotent: no → not said; open world: no → yes"
        assert panel.tone is Tone.DANGER  # it now says it is destructive

        # Always allowing it again (a destructive tool: confirmed) pins the rule to what it is now.
        panel.allow_always.click()
        panel.confirm_yes.click()
        assert (await verdict).allowed
        assert card.panel is None  # answered: the card is itself again
        again = ApprovalRequest.for_tool(CatalogTool("notes__save_note", "notes", hostile), ARGUMENTS)
        assert policy.assess("other chat", again).allowed_by is DecidedBy.RULE

    run_in_qt(qapp, scenario())


def test_a_standalone_card_for_an_app_says_it_too(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        change = ToolChange.between(None, ToolDefinition(description="new"))
        asked = ApprovalRequest(server="notes", tool="save_note", requester=Requester.APP, app="ui://notes/app.html")
        panel = ApprovalPanel(replace(asked, change=change))
        qtbot.addWidget(panel)
        assert panel.change is not None and panel.change_details is not None
        assert "The server changed this tool." in panel.change.text() and not panel.change.isHidden()
        assert "cannot be shown" in panel.change_details.toPlainText()
        plain = ApprovalPanel(ApprovalRequest(server="notes", tool="save_note"))
        qtbot.addWidget(plain)
        assert plain.change is None and plain.change_details is None

    run_in_qt(qapp, scenario())
