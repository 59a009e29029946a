"""Conversations in SQLite: list, resume, rename, delete; a killed process keeps every whole message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_app.core.chat.conversations import Conversation, ConversationNotFoundError, ConversationStore
from tests.llm_server import ScriptedLLM, ToolCall, calls, text

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
    from desktop_app.core.chat.settings import ModelSettings
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
