"""The window's approval card under the organisation's policy: the answers it takes away are greyed, with why."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.catalog import CatalogTool
from desktop_app.core.chat.approval import AlwaysAllowRules, ApprovalPolicy, ApprovalRequest, DecidedBy
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.conversation_view import ConversationView
from tests.hosting import eventually
from tests.policy_files import put_policy
from tests.ui.conversation.save_note_tool import ARGUMENTS, save_note, started
from tests.window_kit import run_in_qt

EVERY_CALL = (
    "Blocked by your organisation's policy: every tool call needs your approval, each time (approvals.everyCall)"
)


@pytest.mark.parametrize("policy", ["everyCall", "alwaysAllow"])
def test_answers_the_policy_takes_away_are_greyed_with_why(
    policy: str, qapp: QApplication, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    rules.add("notes", "save_note")  # saved before the policy came: not applied
    document = {"approvals": {"everyCall": True}} if policy == "everyCall" else {"features": {"alwaysAllow": False}}
    put_policy(tmp_path, monkeypatch, document)

    async def scenario() -> None:
        tool = await save_note(tmp_path, hostile=False)
        view = ConversationView()
        qtbot.addWidget(view)
        view.resize(1024, 640)
        view.show()
        asker = CardAsker(lambda card: view.embed(card.question.call_id or "", card))
        asker.register(ApprovalRequest, ApprovalPanel)
        gate = ApprovalPolicy(asker, rules)
        view.apply(started(tool))
        request = ApprovalRequest.for_tool(CatalogTool("notes__save_note", "notes", tool), ARGUMENTS, call_id="c1")
        verdict = asyncio.ensure_future(gate.decide("chat", request))
        await eventually(lambda: any(p.open for p in view.findChildren(ApprovalPanel)), what="the approval")
        [panel] = [p for p in view.findChildren(ApprovalPanel) if p.open]
        assert not panel.allow_always.isEnabled() and panel.managed.isVisibleTo(panel)
        if policy == "everyCall":
            assert not panel.allow_chat.isEnabled()
            assert panel.allow_always.toolTip() == EVERY_CALL and panel.managed.text() == EVERY_CALL
        else:
            assert panel.allow_chat.isEnabled()
            assert panel.managed.text().startswith(
                'Blocked by your organisation\'s policy: "Always allow" is switched off'
            )
        if path := os.environ.get("MCP_DESK_SCREENSHOTS"):
            view.grab().save(str(Path(path) / f"approval-{policy}.png"))
        qtbot.mouseClick(panel.allow_always, Qt.MouseButton.LeftButton)  # greyed: nothing happens
        assert panel.open and not verdict.done()
        qtbot.mouseClick(panel.allow_once, Qt.MouseButton.LeftButton)
        result = await verdict
        assert result.allowed and result.decided_by is DecidedBy.USER

    run_in_qt(qapp, scenario())
