"""`mcp-desk run --trace`: a turn that reads a resource, calls an approved tool and is asked a form,
recorded as the provider received it and as the servers answered; and no secret in what is written.

Real servers over stdio (a notes server, the asking server), real litellm, the scripted provider.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.ledger.parts import PartKind
from desktop_app.core.ledger.trace import load_trace
from desktop_app.core.ledger.trace_view import TraceView
from tests.cli.trace_turn import API_KEY, LITERAL, STORED_TOKEN, queue_turn, traced_run
from tests.core.ledger.secrets_check import assert_clean
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.ledger_server import TODAY

pytestmark = LITELLM_WARNINGS


@pytest.fixture(autouse=True)
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


@pytest.mark.stdio
def test_the_trace_has_the_exact_requests_and_every_exchange(
    home: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_turn(llm)
    trace = home / "turn.jsonl"
    transcript = home / "transcript.json"
    assert traced_run(home, llm, trace, "--transcript", str(transcript)) == 0
    assert capsys.readouterr().out == "Nine words, and hello Ada.\n"
    records = load_trace(trace)
    assert [r["type"] for r in records[:3]] == ["trace", "masked", "turn"] and records[2]["message"] == "Plan my day"

    # Each request exactly as the provider received it: the same messages, byte for byte.
    view = TraceView(records)
    requests = view.requests()
    assert len(requests) == 4 == len(llm.requests)
    for recorded, received in zip(requests, llm.bodies(), strict=True):
        assert recorded.payload is not None and recorded.api_base == llm.url
        assert json.dumps(recorded.payload["messages"]) == json.dumps(received["messages"])
        assert recorded.payload == received
        assert recorded.ledger is not None and recorded.ledger.counted > 0
        assert recorded.response is not None and recorded.response["usage"]["prompt_tokens"] == 11
    ledger = requests[-1].ledger
    assert ledger is not None
    assert {p.kind for p in ledger.parts} >= {PartKind.GUIDANCE, PartKind.INSTRUCTIONS, PartKind.RESOURCE}

    # Every MCP request the turn made, with its result and timing.
    exchanges = of_type(records, "mcp")
    assert [(r["server"], r["method"], r["params"].get("uri") or r["params"].get("name")) for r in exchanges] == [
        ("notes", "resources/read", "notes://today"),
        ("notes", "tools/call", "count_words"),
        ("asking", "tools/call", "ask_form"),
    ]
    assert exchanges[0]["result"]["contents"][0]["text"] == TODAY
    assert exchanges[1]["result"]["content"][0]["text"] == "9 words"
    assert all(r["ms"] >= 0 and "error" not in r for r in exchanges)
    # The form the server asked and the answer given; each approval and who decided it.
    [form] = of_type(records, "question")
    assert (form["server"], form["kind"], form["question"]["message"]) == ("asking", "FormQuestion", "Who are you?")
    assert form["answer"] == {"action": "accept", "content": {"name": "Ada"}}
    decisions = of_type(records, "ToolDecision")
    assert [(d["tool"], d["allowed"], d["decided_by"]) for d in decisions] == [
        ("count_words", True, "flag"),
        ("ask_form", True, "flag"),
    ]
    # The older transcript file is a view of the same trace.
    document = json.loads(transcript.read_text())
    assert document["messages"] == llm.bodies()[-1]["messages"]
    assert [e["type"] for e in document["events"]][-1] == "TurnFinished"
    assert_clean([trace, transcript], [API_KEY, STORED_TOKEN, LITERAL])


def test_secrets_a_server_or_the_provider_repeat_never_reach_the_trace(home: Path, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("notes__show_settings", {})), text(f"They are set. (The key was {API_KEY}.)"))
    trace = home / "turn.jsonl"
    transcript = home / "transcript.json"
    assert traced_run(home, llm, trace, "--transcript", str(transcript)) == 0
    said = llm.bodies()[-1]["messages"][-1]["content"]
    assert STORED_TOKEN in said and LITERAL in said  # the server did repeat them to the model
    records = load_trace(trace)
    [result] = of_type(records, "ToolResult")
    assert result["text"] == "NOTES_TOKEN=***\nNOTES_LITERAL=***"
    assert of_type(records, "model_response")[-1]["message"]["content"] == "They are set. (The key was ***.)"
    assert_clean([trace, transcript], [API_KEY, STORED_TOKEN, LITERAL])
