"""Conversations in SQLite: list, resume, rename, delete; a killed process keeps every whole message."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_app.core.chat.approval import ApprovalPolicy, Decision, StaticApprover
from desktop_app.core.chat.conversations import Conversation, ConversationNotFoundError, ConversationStore
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import TurnFinished
from desktop_app.core.chat.history_repair import INTERRUPTED_RESULT, missing_results
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.fixture_server import build_fixture_server

ROOT = Path(__file__).resolve().parents[3]


def test_create_append_list_resume_rename_delete(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = ConversationStore(path)
    assert store._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    first = Conversation.start(store, "First")
    first.append({"role": "user", "content": "hello"})
    first.append({"role": "assistant", "content": "hi", "tool_calls": None})
    second = Conversation.start(store)
    second.append({"role": "user", "content": "ünïcode ✓"})
    assert [c.title for c in store.list()] == ["New chat", "First"]  # most recently updated first
    assert [c.message_count for c in store.list()] == [1, 2]
    store.close()

    reopened = ConversationStore(path)
    resumed = Conversation.resume(reopened, first.id)
    assert resumed.messages == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi", "tool_calls": None},
    ]
    resumed.append({"role": "user", "content": "again"})
    assert reopened.list()[0].id == first.id
    reopened.rename(first.id, "  Renamed  ")
    assert reopened.info(first.id).title == "Renamed"
    reopened.delete(second.id)
    assert [c.id for c in reopened.list()] == [first.id]
    with pytest.raises(ConversationNotFoundError):
        reopened.messages(second.id)
    with pytest.raises(ConversationNotFoundError):
        reopened.append(second.id, {"role": "user", "content": "lost"})
    with pytest.raises(ConversationNotFoundError):
        reopened.rename(second.id, "x")
    with pytest.raises(ValueError, match="cannot be empty"):
        reopened.rename(first.id, " ")
    reopened.close()


def test_a_database_from_before_events_and_taint_still_opens(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        """
        CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL,
            updated REAL NOT NULL);
        CREATE TABLE messages (conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            position INTEGER NOT NULL, body TEXT NOT NULL, created REAL NOT NULL,
            PRIMARY KEY (conversation_id, position));
        INSERT INTO conversations VALUES ('old', 'Old chat', 1, 2);
        INSERT INTO messages VALUES ('old', 0, '{"role": "user", "content": "hello"}', 1);
        """
    )
    old.commit()
    old.close()
    store = ConversationStore(path)
    resumed = Conversation.resume(store, "old")
    assert resumed.messages == [{"role": "user", "content": "hello"}]
    assert resumed.events == [] and resumed.taint == [] and resumed.tainted is None
    assert resumed.add_taint("read x from web") and not resumed.add_taint("read x from web")
    resumed.record({"type": "TurnFinished", "reason": "cancelled", "text": "", "iterations": 1})
    fresh = Conversation.start(store, "New")
    fresh.append({"role": "user", "content": "hi"})  # stored with its first message
    assert [c.title for c in store.list()] == ["New", "Old chat"]
    store.close()
    again = Conversation.resume(ConversationStore(path), "old")
    assert again.taint == ["read x from web"] and again.tainted == "read x from web"
    assert again.events == [(1, {"type": "TurnFinished", "reason": "cancelled", "text": "", "iterations": 1})]
    assert Conversation.resume(ConversationStore(path), fresh.id).taint == []


def test_a_conversation_without_a_store_lives_in_memory() -> None:
    conversation = Conversation.start()
    conversation.append({"role": "user", "content": "x"})
    assert conversation.store is None and conversation.messages == [{"role": "user", "content": "x"}]


_KILLED_TURN = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from desktop_app.core.chat.approval import ApprovalPolicy, Decision, StaticApprover
    from desktop_app.core.chat.conversations import Conversation, ConversationStore
    from desktop_app.core.chat.engine import ChatEngine
    from desktop_app.core.chat.events import TextDelta
    from desktop_app.core.model.settings import ModelSettings
    from desktop_app.core.host import ServerHost
    from desktop_app.core.server_config import ServerConfig, TransportKind
    from tests.servers.fixture_server import build_fixture_server

    async def main() -> None:
        server = build_fixture_server()
        host = ServerHost(target_factory=lambda _c, _h: server)
        host.start([ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused")])
        await host.wait_settled(15)
        conversation = Conversation.start(ConversationStore(Path(sys.argv[1])), "killed")
        settings = ModelSettings("openai/scripted", api_base=sys.argv[2], max_retries=0)
        engine = ChatEngine(host, settings, ApprovalPolicy(StaticApprover(Decision.ALLOW_ONCE)))
        async for event in engine.start_turn(conversation, "read it, then talk"):
            if isinstance(event, TextDelta):
                print("streaming", flush=True)

    asyncio.run(main())
    """
)


def test_killing_the_process_mid_turn_loses_only_the_message_in_progress(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    with ScriptedLLM() as llm:
        llm.queue(
            calls(ToolCall("read_resource", {"uri": "fixture://data.json"})),
            text("The data ", "is never finished", hang_after=1),
        )
        process = subprocess.Popen(
            [sys.executable, "-c", _KILLED_TURN, str(path), llm.url],
            cwd=ROOT,
            env={**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            assert process.stdout.readline() == "streaming\n"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(10)
    store = ConversationStore(path)
    [info] = store.list()
    messages = store.messages(info.id)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool"]
    assert messages[1]["tool_calls"][0]["function"]["name"] == "read_resource"
    assert '"fixture data"' in messages[2]["content"]
    store.close()


def test_a_conversation_reaches_the_store_with_its_first_message(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = ConversationStore(path)
    untouched = Conversation.start(store)
    Conversation.start(store, "Also never used")
    assert store.list() == [], "starting a chat stores nothing"
    untouched.title = "Named before the first message"
    untouched.append({"role": "user", "content": "hello"})
    [info] = store.list()
    assert (info.id, info.title, info.message_count) == (untouched.id, "Named before the first message", 1)
    untouched.retitle("Renamed later")
    assert store.info(untouched.id).title == "Renamed later"
    assert Conversation.resume(store, untouched.id).title == "Renamed later"
    store.create("Left empty by an earlier version")
    store.close()
    assert [c.id for c in ConversationStore(path).list()] == [untouched.id], "empty ones are dropped on open"


_KILLED_AT_APPROVAL = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from desktop_app.core.asks.question import ScriptedAsker
    from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalReply, Decision
    from desktop_app.core.chat.conversations import Conversation, ConversationStore
    from desktop_app.core.chat.engine import ChatEngine
    from desktop_app.core.model.settings import ModelSettings
    from desktop_app.core.host import ServerHost
    from desktop_app.core.server_config import ServerConfig, TransportKind
    from tests.servers.fixture_server import build_fixture_server

    async def allow_echo_then_wait(request):
        if request.tool == "echo":
            return ApprovalReply(Decision.ALLOW_ONCE)
        print("approval open", flush=True)  # the card stays open until the app is killed
        await asyncio.Event().wait()

    async def main() -> None:
        server = build_fixture_server()
        host = ServerHost(target_factory=lambda _c, _h: server)
        host.start([ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused")])
        await host.wait_settled(15)
        conversation = Conversation.start(ConversationStore(Path(sys.argv[1])), "killed")
        settings = ModelSettings("openai/scripted", api_base=sys.argv[2], max_retries=0)
        engine = ChatEngine(host, settings, ApprovalPolicy(ScriptedAsker(allow_echo_then_wait)))
        async for _event in engine.start_turn(conversation, "echo, then add"):
            pass

    asyncio.run(main())
    """
)


@LITELLM_WARNINGS[0]
@LITELLM_WARNINGS[1]
def test_tool_calls_a_killed_app_left_unanswered_get_a_stored_result_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    path = tmp_path / "chats.sqlite3"
    with ScriptedLLM() as llm:
        echo = ToolCall("fx__echo", {"text": "hi"}, id="call_echo")
        llm.queue(calls(echo, ToolCall("fx__add", {"a": 1, "b": 2}, id="call_add")))
        process = subprocess.Popen(
            [sys.executable, "-c", _KILLED_AT_APPROVAL, str(path), llm.url],
            cwd=ROOT,
            env={**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            assert process.stdout.readline() == "approval open\n"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(10)

        store = ConversationStore(path)
        [info] = store.list()
        left = store.messages(info.id)
        assert [m["role"] for m in left] == ["user", "assistant", "tool"]  # the add call has no result

        resumed = Conversation.resume(store, info.id)
        assert [m["role"] for m in resumed.messages] == ["user", "assistant", "tool", "tool"]
        assert resumed.messages[3] == {"role": "tool", "tool_call_id": "call_add", "content": INTERRUPTED_RESULT}
        store.close()
        stored = ConversationStore(path)
        assert stored.messages(info.id) == resumed.messages  # the repair is stored, not redone each time
        assert stored.info(info.id).message_count == 4

        # The resumed chat goes on: the provider accepts the repaired history.
        llm.queue(text("Carrying on."))
        asyncio.run(_one_turn(Conversation.resume(stored, info.id), llm.url, "go on"))
        sent = llm.bodies()[-1]["messages"]
        assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["call_echo", "call_add"]
        assert [m["role"] for m in stored.messages(info.id)][-2:] == ["user", "assistant"]
        stored.close()


async def _one_turn(conversation: Conversation, url: str, message: str) -> None:
    server = build_fixture_server()
    host = ServerHost(target_factory=lambda _c, _h: server)
    host.start([ServerConfig(name="fx", transport=TransportKind.STDIO, command="unused")])
    try:
        await host.wait_settled(15)
        settings = ModelSettings("openai/scripted", api_base=url, max_retries=0)
        engine = ChatEngine(host, settings, ApprovalPolicy(StaticApprover(Decision.DENY)), secrets=None)
        events = [event async for event in engine.start_turn(conversation, message)]
        finished = events[-1]
        assert isinstance(finished, TurnFinished) and finished.reason == "stop", events
    finally:
        await host.stop_all()


def test_missing_results_go_after_the_results_that_were_stored() -> None:
    call = {"type": "function", "function": {"name": "t", "arguments": "{}"}}
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [{**call, "id": "1"}, {**call, "id": "2"}]},
        {"role": "tool", "tool_call_id": "1", "content": "done"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "", "tool_calls": [{**call, "id": "3"}]},
    ]
    assert missing_results(history) == [
        (3, {"role": "tool", "tool_call_id": "2", "content": INTERRUPTED_RESULT}),
        (5, {"role": "tool", "tool_call_id": "3", "content": INTERRUPTED_RESULT}),
    ]
    assert missing_results(history[:1]) == []
