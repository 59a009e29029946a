"""`mcp-desk run --trace/--transcript` under umask 022: both hold the whole conversation, so both are 0600,
and a folder the run creates for them is 0700."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text

pytestmark = LITELLM_WARNINGS


@pytest.mark.usefixtures("wide_umask")
def test_the_trace_and_the_transcript_are_private(
    home: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-private-files-test")
    config = home / "servers.json"
    config.write_text(json.dumps({"mcpServers": {}}))
    old_trace = home / "turn.jsonl"
    old_trace.write_text("")
    old_trace.chmod(0o644)  # a trace of an earlier run, from before
    transcript = home / "new folder" / "transcript.json"
    llm.queue(text("A private answer."))

    args = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url]
    assert run_command([*args, "--trace", str(old_trace), "--transcript", str(transcript), "Hello"]) == 0

    assert "A private answer." in old_trace.read_text() and "A private answer." in transcript.read_text()
    assert stat.S_IMODE(old_trace.stat().st_mode) == 0o600
    assert stat.S_IMODE(transcript.stat().st_mode) == 0o600
    assert stat.S_IMODE(transcript.parent.stat().st_mode) == 0o700
