"""`mcp-desk replay`: a recorded turn played again against live servers without calling the provider.

The same server gives the same results (exit 0, the answer printed); a server whose tool answers
differently now is caught with a diff (exit 1); `--approve` overrides the recorded decisions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.__main__ import main
from desktop_app.cli.replay import replay_command
from tests.cli.trace_turn import API_KEY, LITERAL, STORED_TOKEN, queue_turn, traced_run, write_config
from tests.core.ledger.secrets_check import assert_clean
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text

pytestmark = LITELLM_WARNINGS


@pytest.fixture(autouse=True)
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def test_replay_passes_against_the_same_servers_and_shows_what_changed(
    home: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    queue_turn(llm)
    trace = home / "turn.jsonl"
    assert traced_run(home, llm, trace) == 0
    capsys.readouterr()
    recorded = len(llm.requests)
    monkeypatch.delenv("OPENAI_API_KEY")  # no provider is needed, nor its key
    same = home / "servers.json"

    # The same servers: every result is the recorded one; the recorded answer is printed.
    assert main(["replay", str(trace), "--config", str(same)]) == 0
    out, err = capsys.readouterr()
    assert out == "Nine words, and hello Ada.\n" and err == ""
    assert len(llm.requests) == recorded  # the provider was never called

    # The notes server after a regression: its count is one off. The diff names the call and shows both.
    changed = write_config(home / "changed.json", LEDGER_VARIANT="changed")
    assert replay_command([str(trace), "--config", str(changed)]) == 1
    out, _ = capsys.readouterr()
    assert out.startswith("Nine words, and hello Ada.\n\n1 tool result(s) differ from the recording:\n")
    assert "--- recorded notes__count_words (call_0_notes__count_words)\n+++ replayed notes__count_words\n" in out
    assert "\n-9 words\n+10 words\n" in out

    # --approve deny refuses what was allowed: both tool calls now differ, as refusals.
    assert replay_command([str(trace), "--config", str(same), "--approve", "deny"]) == 1
    out, err = capsys.readouterr()
    assert "2 tool result(s) differ" in out and out.count("+[denied]\n") == 2
    assert "refused tool count_words on server notes" in err
    assert len(llm.requests) == recorded


def test_replay_refuses_what_is_not_a_trace_and_scrubs_what_it_prints(
    home: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_trace = home / "notes.txt"
    not_a_trace.write_text("hello\n")
    assert replay_command([str(not_a_trace)]) == 2
    assert "cannot read the trace" in capsys.readouterr().err
    assert replay_command([str(home / "missing.jsonl")]) == 2

    # A server that repeats its environment: the recording is scrubbed, and so is what the replay prints.
    llm.queue(calls(ToolCall("notes__show_settings", {})), text("Set."))
    trace = home / "turn.jsonl"
    assert traced_run(home, llm, trace) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    records = [r for r in records if not (r["type"] == "ToolResult" and r.get("name") == "notes__show_settings")]
    edited = home / "edited.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert replay_command([str(edited), "--config", str(home / "servers.json")]) == 1
    out, _ = capsys.readouterr()
    assert "+NOTES_TOKEN=***\n+NOTES_LITERAL=***\n" in out
    assert STORED_TOKEN not in out and LITERAL not in out
    assert_clean([trace], [API_KEY, STORED_TOKEN, LITERAL])
