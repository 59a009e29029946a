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

from desktop_app.core.chat.approval import Decision, StaticApprover
from desktop_app.core.chat.conversations import Conversation, ConversationNotFoundError, ConversationStore
from desktop_app.core.chat.history_repair import INTERRUPTED_RESULT, missing_results
from tests.engine_kit import finished, run, scripted_engine
from tests.hosting import serving
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
    from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalReply, DecidedBy, Decision
    from desktop_app.core.chat.conversations import Conversation, ConversationStore
    from desktop_app.core.chat.engine import ChatEngine
    from desktop_app.core.model.settings import ModelSettings
    from desktop_app.core.host import ServerHost
    from desktop_app.core.server_config import ServerConfig, TransportKind
    from tests.servers.fixture_server import build_fixture_server

    async def allow_echo_then_wait(request):
        if request.tool == "echo":
            return ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER)
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
        asyncio.run(_one_turn(Conversation.resume(stored, info.id), llm, "go on"))
        sent = llm.bodies()[-1]["messages"]
        assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["call_echo", "call_add"]
        assert [m["role"] for m in stored.messages(info.id)][-2:] == ["user", "assistant"]
        stored.close()


async def _one_turn(conversation: Conversation, llm: ScriptedLLM, message: str) -> None:
    async with serving({"fx": build_fixture_server()}, policy=None) as host:
        events = await run(scripted_engine(host, llm, StaticApprover(Decision.DENY)), message, conversation)
        assert finished(events).reason == "stop", events


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


def test_find_in_history_matches_titles_and_what_was_written(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    weather = Conversation.start(store, "Weather in Lyon")
    weather.append({"role": "user", "content": "Will it rain tomorrow?"})
    recipe = Conversation.start(store, "Dinner")
    recipe.append({"role": "user", "content": [{"type": "text", "text": "A recipe with 100% butter"}]})
    recipe.append({"role": "assistant", "content": "Try a Brötchen_loaf, it rains butter."})
    recipe.append({"role": "tool", "tool_call_id": "c1", "content": "secret tool output about Lyon"})
    assert [hit.info.id for hit in store.search("lyon")] == [weather.id], "titles match; tool results do not"
    assert store.search("lyon")[0].snippet == ""
    assert [(hit.info.id, hit.snippet) for hit in store.search("RAIN")] == [
        (recipe.id, "Try a Brötchen_loaf, it rains butter."),
        (weather.id, "Will it rain tomorrow?"),
    ], "any case, any part of a word, the newest chat first"
    assert [hit.info.id for hit in store.search("100%")] == [recipe.id]
    assert store.search("10%") == [] and store.search("t_y") == [], "% and _ are the characters themselves"
    assert [hit.info.id for hit in store.search("brötchen")] == [recipe.id]
    assert store.search("   ") == []
    store.delete(recipe.id)
    assert store.search("butter") == []


def test_a_database_from_before_the_index_is_indexed_on_open(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    ConversationStore(path).close()
    old = sqlite3.connect(path)
    old.executescript(
        """
        DROP TABLE message_text;
        INSERT INTO conversations VALUES ('old', 'Old chat', 1, 2, NULL);
        INSERT INTO messages VALUES ('old', 0, '{"role": "user", "content": "an ancient question"}', 1);
        """
    )
    old.commit()
    old.close()
    assert [hit.snippet for hit in ConversationStore(path).search("ancient")] == ["an ancient question"]


def test_find_in_history_among_two_thousand_chats(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    for number in range(2000):
        chat = Conversation.start(store, f"Chat {number}")
        chat.append({"role": "user", "content": f"Question {number}: what about topic-{number % 50}?"})
        chat.append({"role": "assistant", "content": f"An answer of {number * 3} words."})
    assert len(store.search("topic-7?")) == 40
    assert [hit.info.title for hit in store.search("answer of 5997 words")] == ["Chat 1999"]
    assert len(store.search("chat 1")) == 1111, "titles: 1, 10-19, 100-199, 1000-1999"
    hits = store.search("what about")
    assert len(hits) == 2000 and hits[0].info.title == "Chat 1999"


def test_replacing_keeps_what_was_sent_but_the_model_reads_it_no_more(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    chat = Conversation.start(store, "Replaced")
    chat.append({"role": "user", "content": "first question"})
    chat.append({"role": "assistant", "content": "first answer"})
    chat.record({"type": "TurnFinished", "reason": "cancelled", "text": "", "iterations": 1})  # before the next
    chat.append({"role": "user", "content": "second question"})
    chat.record({"type": "ChatError", "kind": "provider", "message": "HTTP 503"})
    replaced = chat.replace_from(2, "retry")
    assert replaced.messages == ({"role": "user", "content": "second question"},)
    assert replaced.events == ((1, {"type": "ChatError", "kind": "provider", "message": "HTTP 503"}),)
    chat.append({"role": "user", "content": "second question"})
    chat.append({"role": "assistant", "content": "second answer"})

    again = Conversation.resume(ConversationStore(tmp_path / "chats.sqlite3"), chat.id)
    assert [m["content"] for m in again.messages] == [
        "first question",
        "first answer",
        "second question",
        "second answer",
    ]
    assert again.events == chat.events
    [(at_stop, stop), (at_replaced, record)] = again.events
    assert (at_stop, stop["type"], at_replaced, record["type"]) == (2, "TurnFinished", 2, "Replaced")
    assert record["reason"] == "retry" and record["messages"] == [{"role": "user", "content": "second question"}]
    assert record["events"] == [[1, {"type": "ChatError", "kind": "provider", "message": "HTTP 503"}]]
    assert len(store.search("second question")) == 1, "what was replaced is still found"


def test_each_configuration_keeps_its_own_history(tmp_path: Path) -> None:
    from desktop_app.core.paths import HISTORY_FILENAME, data_dir, default_config_path, history_path

    assert history_path(default_config_path()) == data_dir() / HISTORY_FILENAME, "the user's own: the first file"
    work, home = tmp_path / "work" / "servers.json", tmp_path / "home" / "servers.json"
    assert history_path(work) != history_path(home) and history_path(work).name == HISTORY_FILENAME
    assert history_path(work) == history_path(tmp_path / "work" / ".." / "work" / "servers.json")
    chat = Conversation.start(ConversationStore(history_path(work)))
    chat.append({"role": "user", "content": "only at work"})
    assert ConversationStore(history_path(home)).list() == []
    assert [c.id for c in ConversationStore(history_path(work)).list()] == [chat.id]


def test_a_long_message_is_cut_around_what_matched(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    chat = Conversation.start(store, "Notes")
    chat.append({"role": "assistant", "content": "x" * 200 + " the Rehearsal is on Friday " + "y" * 200})
    (hit,) = store.search("rehearsal")
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert "the Rehearsal is on Friday" in hit.snippet and len(hit.snippet) == 62
    chat.append({"role": "user", "content": "rehearsal " + "z" * 100})
    assert store.search("REHEARSAL")[0].snippet == "rehearsal " + "z" * 50 + "…", "the newest message, from its start"
