"""What the model got, recorded by the engine: each request's parts and cuts, the payload exactly as the
provider received it, the provider's usage beside the app's count, the turn's MCP exchanges and questions.

Real in-process MCP servers, real litellm, a scripted provider over HTTP that reports usage counted
from the body it received, the way OpenAI and Anthropic bill it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.chat.conversations import Conversation, ConversationStore
from desktop_app.core.chat.events import TextDelta, TurnFinished
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.chat.turn_trace import traced_attachments
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.parts import AGREEMENT, Ledger, PartKind, Section
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.ledger.trace import TraceWriter, load_trace
from desktop_app.core.ledger.trace_view import TraceView
from desktop_app.core.resource_ref import ResourceRef
from tests.core.ledger.realistic_provider import RealisticLLM
from tests.core.ledger.secrets_check import assert_clean
from tests.engine_kit import scripted_engine
from tests.hosting import inprocess_config, serving
from tests.llm_server import LITELLM_WARNINGS, ToolCall, calls, failure, text
from tests.servers.asking_server import build_asking_server
from tests.servers.fixture_server import build_fixture_server
from tests.servers.ledger_server import INSTRUCTIONS, build_ledger_server

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]

API_KEY = "sk-ledger-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)


@pytest.fixture
def llm() -> Iterator[RealisticLLM]:
    with RealisticLLM() as server:
        yield server


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    servers = {"fx": build_fixture_server(), "notes": build_ledger_server(), "asking": build_asking_server()}
    configs = (inprocess_config("fx"), inprocess_config("notes", trusted=True), inprocess_config("asking"))
    async with serving(servers, *configs) as host:
        yield host


def answer_forms(question: Question[Any]) -> Any:
    if isinstance(question, FormQuestion):
        return ElicitReply("accept", {"name": "Ada"})
    return question.fallback()


def kinds(ledger: Ledger, section: Section) -> list[PartKind]:
    return [part.kind for part in ledger.in_section(section)]


def labels(ledger: Ledger) -> list[str]:
    return [part.label for part in ledger.parts]


async def test_every_part_of_a_rich_turn_is_in_its_ledger_and_the_payload_is_what_the_provider_got(
    host: ServerHost, llm: RealisticLLM, tmp_path: Path
) -> None:
    host.questions.asker = ScriptedAsker(answer_forms)
    llm.queue(
        calls(
            ToolCall("read_resource", {"uri": "fixture://long"}),
            ToolCall("read_resource", {"uri": "fixture://image.png"}),
        ),
        calls(ToolCall("fx__rich", {}), ToolCall("invoke_prompt", {"name": "greet", "arguments": {"name": "Ada"}})),
        calls(
            ToolCall(
                "asking__ask_form",
                {"schema": json.dumps({"type": "object", "properties": {"name": {"type": "string"}}})},
            )
        ),
        text("Done: ", "the notes are long."),
    )
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    conversation = Conversation.start(store)
    engine = scripted_engine(
        host, llm, model="openai/gpt-4o", read_cap_bytes=4096, images_to_model=True, catalog_budget=100
    )
    turn = engine.start_turn(conversation, "Summarise the meeting.", [ResourceRef("", "notes://meeting")])
    events = [event async for event in turn]
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "Done: the notes are long."
    await turn.traced()

    # Reopened as after a restart: the trace lives beside the conversations, keyed by the conversation.
    view = LedgerStore.beside(store.path).load(conversation.id)
    requests = view.requests()
    assert len(requests) == 4 == len(llm.requests)
    for recorded, received in zip(requests, llm.bodies(), strict=True):
        assert recorded.payload is not None
        assert json.dumps(recorded.payload["messages"]) == json.dumps(received["messages"])  # byte for byte
        assert recorded.payload["tools"] == received["tools"]
    assert view.request_for_answer("Done: the notes are long.") == requests[-1]

    ledger = requests[-1].ledger
    assert ledger is not None
    # The system prompt: the app's guidance, a trusted server's instructions, each server's catalog.
    assert kinds(ledger, Section.SYSTEM).count(PartKind.GUIDANCE) == 1
    [instructions] = [p for p in ledger.parts if p.kind is PartKind.INSTRUCTIONS]
    assert instructions.server == "notes" and instructions.preview == INSTRUCTIONS
    assert {p.server for p in ledger.parts if p.kind is PartKind.CATALOG} == {"asking", "fx", "notes"}
    # Tool schemas, per server with how many tools, and the app's own.
    tools = {p.server: p for p in ledger.in_section(Section.TOOLS) if p.kind is PartKind.TOOLS}
    assert set(tools) == {None, "asking", "fx", "notes"}
    assert tools["notes"].label == 'Tools of "notes" (2)'
    assert tools["notes"].preview == "notes__count_words, notes__show_settings"
    assert tools[None].label.startswith("MCP Desk's own tools") and "read_resource" in tools[None].preview
    # Each message: the user's words, the attachment, each read, each result, the prompt's messages, the image.
    messages = labels(ledger)
    for expected in (
        "Your message",
        "Resource notes://meeting (attached)",
        "Resource fixture://long (read)",
        "Resource fixture://image.png (read)",
        "Image of fixture://image.png",
        "Result of fx · rich",
        "Result of invoke_prompt",
        "Prompt greet message",
        "Result of asking · ask_form",
        "The model's call to read_resource, read_resource",
    ):
        assert expected in messages, expected
    [attached] = [p for p in ledger.parts if p.label == "Resource notes://meeting (attached)"]
    assert attached.server == "notes" and attached.preview.startswith("Attached resource notes://meeting")
    [image] = [p for p in ledger.parts if p.kind is PartKind.IMAGE]
    assert image.tokens == 85 + 170 + count_tokens("openai/gpt-4o", image.preview)  # one tile, and the line naming it
    # What was cut or capped, and why.
    cuts = {cut.kind: [] for cut in ledger.cuts}
    for cut in ledger.cuts:
        cuts[cut.kind].append(cut.text)
    assert any(t.startswith("fixture://long: cut at the read cap of 4.0 KB") for t in cuts["read_cap"])
    assert any("fixture://image.png (image/png" in t and "the picture follows as an image" in t for t in cuts["binary"])
    assert any(t.startswith("Result of fx · rich: 2 binary part(s)") for t in cuts["binary"])
    assert any("entries are listed" in t and "search_resources" in t for t in cuts["catalog"])
    assert any('instructions of "fx" are left out' in t for t in cuts["instructions"])
    # Every part is counted, and the count agrees with what the provider billed.
    assert ledger.counted == sum(p.tokens for p in ledger.parts) > 1000
    assert ledger.reported_prompt_tokens is not None and ledger.agrees(), (
        ledger.counted,
        ledger.reported_prompt_tokens,
    )

    # Every MCP request of the turn, with its params, result and timing; the form and its answer.
    exchanges = [
        (r["server"], r["method"], r["params"].get("uri") or r["params"].get("name"))
        for r in view.of_turn(requests[0].turn, "mcp")
    ]
    assert exchanges == [
        ("notes", "resources/read", "notes://meeting"),
        ("fx", "resources/read", "fixture://long"),
        ("fx", "resources/read", "fixture://image.png"),
        ("fx", "tools/call", "rich"),
        ("fx", "prompts/get", "greet"),
        ("asking", "tools/call", "ask_form"),
    ]
    for record in view.of_turn(requests[0].turn, "mcp"):
        assert "result" in record and record["ms"] >= 0 and record["started_ms"] >= 0
    [form] = view.of_turn(requests[0].turn, "question")
    assert form["kind"] == "FormQuestion" and form["server"] == "asking" and form["answered"]
    assert form["answer"] == {"action": "accept", "content": {"name": "Ada"}}
    decided = view.of_turn(requests[0].turn, "ToolDecision")
    assert [(d["tool"], d["allowed"], d["decided_by"]) for d in decided] == [
        ("rich", True, "user"),
        ("ask_form", True, "user"),
    ]
    assert_clean([LedgerStore.beside(store.path).path(conversation.id)], [API_KEY])


async def test_anthropic_requests_are_recorded_as_translated_and_their_count_agrees(
    host: ServerHost, llm: RealisticLLM, tmp_path: Path
) -> None:
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "notes://meeting"})),
        calls(ToolCall("notes__count_words", {"text": "one two three"})),
        text("Three words."),
    )
    engine = scripted_engine(host, llm, model="anthropic/claude-sonnet-4-5")
    path = tmp_path / "trace.jsonl"  # an unstored conversation: only the file given is written
    turn = engine.start_turn(Conversation(), "How many words?", trace=TraceWriter(path, engine.traces.scrubber))
    assert (await turn.traced()).text == "Three words."
    view = TraceView(load_trace(path))
    for recorded, received in zip(view.requests(), llm.bodies(), strict=True):
        assert recorded.payload == received  # Anthropic's own shape: system blocks, tool_use, tool_result
    last = view.requests()[-1]
    assert last.payload is not None and last.payload["system"][0]["text"].startswith("You are the assistant")
    assert last.ledger is not None and last.ledger.dialect == "anthropic"
    assert [p.label for p in last.ledger.parts if p.kind is PartKind.FRAMING][1] == "The tool-use system prompt"
    reported = last.ledger.reported_prompt_tokens
    assert reported is not None and reported > 1000
    assert abs(reported - last.ledger.counted) <= AGREEMENT * reported, (last.ledger.counted, reported)
    assert_clean([path], [API_KEY])


async def test_a_stopped_answer_and_a_failed_request_are_traced_with_what_was_sent(
    host: ServerHost, llm: RealisticLLM, tmp_path: Path
) -> None:
    llm.queue(text("Part one. ", "Part two. ", "never sent", hang_after=2), failure(429, "slow down"))
    engine = scripted_engine(host, llm, model="openai/gpt-4o")
    path = tmp_path / "trace.jsonl"
    conversation = Conversation()
    turn = engine.start_turn(conversation, "Tell me a story.", trace=TraceWriter(path, engine.traces.scrubber))
    async for event in turn:
        if isinstance(event, TextDelta) and event.text == "Part two. ":
            turn.cancel()
    await turn.traced()
    failed = engine.start_turn(conversation, "Go on.", trace=TraceWriter(path, engine.traces.scrubber))
    await failed.traced()
    stopped, refused = TraceView(load_trace(path)).requests()
    assert stopped.payload == llm.bodies()[0] and refused.payload == llm.bodies()[1]
    assert stopped.response is not None and stopped.response["error"] == "cancelled by the user"
    assert stopped.response["message"] == {"role": "assistant", "content": "Part one. Part two. "}
    assert refused.response is not None and "rate limited (HTTP 429)" in refused.response["error"]
    for request in (stopped, refused):
        assert request.ledger is not None and request.ledger.reported_prompt_tokens is None
        assert "The provider reported no usage for this request." in request.ledger.notes


async def test_an_attachment_is_traced_with_its_server_and_read_back_with_it(
    host: ServerHost, llm: RealisticLLM, tmp_path: Path
) -> None:
    llm.queue(text("Read."))
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    conversation = Conversation.start(store)
    engine = scripted_engine(host, llm, model="openai/gpt-4o")
    turn = engine.start_turn(conversation, "Summarise.", [ResourceRef("notes", "notes://meeting")])
    assert isinstance([event async for event in turn][-1], TurnFinished)
    await turn.traced()

    [record] = LedgerStore.beside(store.path).load(conversation.id).turns()
    assert record["attachments"] == [{"uri": "notes://meeting", "server": "notes"}]
    assert traced_attachments(record["attachments"]) == [ResourceRef("notes", "notes://meeting")]
    # An older trace lists plain URIs; what is neither is left out.
    assert traced_attachments(["notes://meeting"]) == [ResourceRef("", "notes://meeting")]
    odd = [{"uri": 3}, 5, {"uri": "a://b", "server": 7}, None]
    assert traced_attachments(odd) == [ResourceRef("", "a://b")] and traced_attachments("x://1") == []
