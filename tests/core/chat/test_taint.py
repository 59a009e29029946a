"""Trust, annotations and taint through the real engine: two annotated servers, a scripted model.

`desk` is trusted (its read-only tools run without asking); `web` is not, and its notes carry
a prompt injection that tries to make the model delete everything on `desk`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.chat.approval import ApprovalReply, ApprovalRequest, DecidedBy, Decision
from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.chat.engine import CANCELLED_RESULT
from desktop_app.core.chat.events import (
    ApprovalNeeded,
    ConversationTainted,
    ToolCallStarted,
    ToolDecision,
    ToolResult,
    event_from_dict,
)
from desktop_app.core.host import ServerHost
from desktop_app.core.trust import ToolHints
from tests.engine_kit import of_type, run, scripted_engine
from tests.hosting import inprocess_config, serving
from tests.llm_server import LITELLM_WARNINGS, RecordingApprover, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.annotated_server import INJECTION, build_annotated_server

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    servers = {"desk": build_annotated_server("desk"), "web": build_annotated_server("web")}
    desk = inprocess_config("desk", trusted=True, auto_approve_read_only=True)
    async with serving(servers, desk, inprocess_config("web")) as host:
        yield host


async def deleted(host: ServerHost) -> str:
    [content] = await host.read_resource("desk://deleted")
    return content.text or ""


async def test_injected_resource_cannot_drive_a_destructive_tool_under_a_chat_rule(
    host: ServerHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        [
            ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER),
            ApprovalReply(Decision.DENY, reason="I never asked for that", by=DecidedBy.USER),
        ]
    )
    engine = scripted_engine(host, llm, approver)
    store = ConversationStore(tmp_path / "chats.sqlite3")
    chat = Conversation.start(store)

    # Before any untrusted content: "for this chat" covers the second delete; read-only lookups never ask.
    llm.queue(
        calls(ToolCall("desk__delete_item", {"item_id": "banana"})),
        calls(ToolCall("desk__delete_item", {"item_id": "cherry"}), ToolCall("desk__lookup", {"item_id": "kiwi"})),
        text("Deleted banana and cherry."),
    )
    first = await run(engine, "Delete banana and cherry", chat)
    assert len(approver.requests) == 1
    assert [d.decided_by for d in of_type(first, ToolDecision)] == ["user", "chat", "server_rule"]
    assert of_type(first, ConversationTainted) == [] and chat.taint == []

    # The untrusted notes ask the model to delete everything; the model obeys, the gate does not.
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "web://injected"})),
        calls(ToolCall("desk__delete_item", {"item_id": "everything"}), ToolCall("desk__lookup", {"item_id": "apple"})),
        text("Your notes were empty."),
    )
    second = await run(engine, "Summarize my notes", chat)
    [tainted] = of_type(second, ConversationTainted)
    assert tainted.reason == "read web://injected from web, a server you have not marked as trusted"
    assert tool_messages(llm.bodies()[-2])[-1]["content"] == INJECTION
    asked = approver.requests[-1]
    assert len(approver.requests) == 2
    assert (asked.tool, asked.arguments, asked.rule_paused, asked.taint) == (
        "delete_item",
        {"item_id": "everything"},
        True,
        tainted.reason,
    )
    assert asked.hints.claims_destructive and asked.trust.trusted
    [needed] = of_type(second, ApprovalNeeded)
    assert needed.rule_paused and needed.taint == tainted.reason
    denied, looked_up = of_type(second, ToolDecision)
    assert (denied.allowed, denied.decided_by, denied.reason, denied.rule_paused) == (
        False,
        "user",
        "I never asked for that",
        True,
    )
    assert (looked_up.allowed, looked_up.decided_by, looked_up.taint) == (True, "server_rule", None)
    refused, lookup = tool_messages(llm.bodies()[-1])[-2:]
    assert (
        refused["content"]
        == "The user declined: I never asked for that\n(The tool 'desk__delete_item' was not called.)"
    )
    assert lookup["content"] == "Item apple: a fruit."
    assert await deleted(host) == "banana\ncherry"

    # Reopened later (a new policy, as after a restart), the chat is still tainted and still asks.
    resumed = Conversation.resume(store, chat.id)
    assert resumed.taint == [tainted.reason]
    later = RecordingApprover()
    llm.queue(calls(ToolCall("desk__delete_item", {"item_id": "apple"})), text("ok"))
    await run(scripted_engine(host, llm, later), "Delete apple", resumed)
    [again] = later.requests
    assert again.under_taint and again.taint == tainted.reason
    store.close()


@pytest.mark.parametrize(
    ("call", "arguments", "taint"),
    [
        ("desk__lookup", {"item_id": "a"}, None),  # trusted and closed world
        (
            "desk__fetch_page",
            {"url": "https://example.com"},
            "result of fetch_page on desk, a tool that may bring in content",
        ),
        ("desk__unannotated", {"text": "x"}, "result of unannotated on desk, a tool that may bring in content"),
        ("web__lookup", {"item_id": "a"}, "result of lookup on web, a server you have not marked as trusted"),
    ],
)
async def test_which_tool_results_taint(
    host: ServerHost, llm: ScriptedLLM, call: str, arguments: dict[str, Any], taint: str | None
) -> None:
    chat = Conversation()
    llm.queue(calls(ToolCall(call, arguments)), text("ok"))
    events = await run(scripted_engine(host, llm, RecordingApprover()), "go", chat)
    assert [e.reason[: len(taint)] for e in of_type(events, ConversationTainted)] == ([taint] if taint else [])
    assert (chat.tainted or "")[: len(taint or "")] == (taint or "")


async def test_trusted_content_and_denied_calls_do_not_taint(host: ServerHost, llm: ScriptedLLM) -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.DENY, by=DecidedBy.USER))
    chat = Conversation()
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "desk://injected"}), ToolCall("web__delete_item", {"item_id": "x"})),
        text("ok"),
    )
    events = await run(scripted_engine(host, llm, approver), "go", chat)
    assert of_type(events, ConversationTainted) == [] and chat.tainted is None
    [request] = approver.requests
    assert isinstance(request, ApprovalRequest) and not request.trust.trusted and not request.read_only


async def test_the_history_keeps_what_ran_and_who_decided(host: ServerHost, llm: ScriptedLLM, tmp_path: Path) -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.ALLOW_ONCE, {"item_id": "plum"}, by=DecidedBy.USER))
    store = ConversationStore(tmp_path / "chats.sqlite3")
    chat = Conversation.start(store)
    llm.queue(
        calls(ToolCall("desk__delete_item", {"item_id": "pear"})),
        calls(ToolCall("read_resource", {"uri": "web://injected"})),
        text("done"),
    )
    await run(scripted_engine(host, llm, approver), "delete pear", chat)
    stored = Conversation.resume(store, chat.id)
    kinds = [(position, event["type"]) for position, event in stored.events]
    # Positions count the messages before each event: user 0, assistant 1, tool 2, assistant 3, tool 4.
    assert kinds == [
        (2, "ToolCallStarted"),
        (2, "ToolDecision"),
        (2, "ToolResult"),
        (4, "ToolCallStarted"),
        (4, "ResourceRead"),
        (4, "ConversationTainted"),
        (4, "ToolResult"),
    ]
    started, decision = (event_from_dict(e) for _, e in stored.events[:2])
    assert isinstance(started, ToolCallStarted)
    assert (started.server, started.tool, started.title, started.trusted) == (
        "desk",
        "delete_item",
        "Delete an item",
        True,
    )
    assert started.hints == ToolHints(read_only=False, destructive=True, idempotent=True, open_world=False)
    assert started.arguments == {"item_id": "pear"}  # what the model proposed
    assert isinstance(decision, ToolDecision)
    assert decision.arguments == {"item_id": "plum"} and decision.edited  # what the user let run
    assert (decision.decided_by, decision.decision) == (DecidedBy.USER, Decision.ALLOW_ONCE)
    result = stored.events[2][1]
    assert result["type"] == "ToolResult" and result["text"] == ""  # the text is the tool message, kept once
    read = event_from_dict(stored.events[4][1])
    assert read is not None and getattr(read, "total_size", 0) == len(INJECTION)
    assert await deleted(host) == "plum"
    store.close()


async def test_a_call_cancelled_while_waiting_is_marked(host: ServerHost, llm: ScriptedLLM, tmp_path: Path) -> None:
    never = asyncio.Event()

    class Waiting:
        async def ask(self, question: Any) -> Any:
            await never.wait()

    store = ConversationStore(tmp_path / "chats.sqlite3")
    chat = Conversation.start(store)
    engine = scripted_engine(host, llm, Waiting())
    llm.queue(calls(ToolCall("desk__delete_item", {"item_id": "x"})))
    turn = engine.start_turn(chat, "delete")
    deadline = time.monotonic() + 10
    while not any(isinstance(e, ApprovalNeeded) for e in turn.events):
        assert time.monotonic() < deadline, "the call was never asked about"
        await asyncio.sleep(0.01)
    turn.cancel()
    assert (await asyncio.wait_for(turn.wait(), 5)).reason == "cancelled"
    [result] = of_type(turn.events, ToolResult)
    assert result.cancelled and result.text == CANCELLED_RESULT and not result.is_error
    stored = [e["type"] for _, e in Conversation.resume(store, chat.id).events]
    assert stored == ["ToolCallStarted", "ToolResult", "TurnFinished"]
    store.close()


def test_an_apps_words_taint_unless_its_server_is_trusted() -> None:
    from desktop_app.core.trust import UNTRUSTED, ServerTrust, app_taint

    assert app_taint("demo", "ui://demo/board.html", ServerTrust(trusted=True)) is None
    reason = app_taint("demo", "ui://demo/board.html", UNTRUSTED)
    assert reason == "text from the app ui://demo/board.html of demo, a server you have not marked as trusted"
