"""`mcp-desk run --trace` masks what is secret and keeps ordinary words: a server's `MODE=deleted` is
not a credential, so "deleted" stays in what the model got, and a replay under `MODE=removed` sees
the change. Credentials (by name, by shape, from the secret store) are masked, and the trace says
which names it masked, never their values.

Real servers over stdio, real litellm, the scripted provider.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli.replay import replay_command
from desktop_app.cli.run import run_command
from desktop_app.core.ledger.trace import load_trace
from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import open_secret_store
from tests.core.ledger.secrets_check import assert_clean
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text

pytestmark = LITELLM_WARNINGS

MODE_SCRIPT = Path(__file__).resolve().parents[1] / "servers" / "mode_server.py"
PROVIDER_KEY = "sk-masking-test-0a1b2c3d4e5f6a7b"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
NAMED_KEY = "correct horse battery staple"
"""Ordinary words, but under a name that says credential."""
STORED = "kept-in-the-keyring"


@pytest.fixture(autouse=True)
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_KEY)


def write_config(home: Path, mode: str) -> Path:
    env = {"MODE": mode, "GITHUB_TOKEN": GITHUB_TOKEN, "API_KEY": NAMED_KEY, "STORED": "${secret:FILES_STORED}"}
    files = {"command": sys.executable, "args": [str(MODE_SCRIPT)], "env": env, "trusted": True}
    path = home / f"servers-{mode}.json"
    path.write_text(json.dumps({"mcpServers": {"files": files}}))
    return path


def run(home: Path, llm: ScriptedLLM, trace: Path, mode: str) -> int:
    open_secret_store(data_dir()).set("FILES_STORED", STORED)
    args = ["--config", str(write_config(home, mode)), "--model", "openai/scripted", "--api-base", llm.url]
    return run_command([*args, "--approve", "allow", "--trace", str(trace), "Remove alpha"])


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


def test_ordinary_words_stay_and_credentials_are_masked_and_named(home: Path, llm: ScriptedLLM) -> None:
    llm.queue(
        calls(ToolCall("files__remove", {"name": "alpha"})),
        calls(ToolCall("files__show_settings", {})),
        text("alpha was deleted."),
    )
    trace = home / "turn.jsonl"
    assert run(home, llm, trace, "deleted") == 0
    records = load_trace(trace)
    removed, settings = of_type(records, "ToolResult")
    assert removed["text"] == "deleted alpha"
    assert of_type(records, "mcp")[0]["result"]["content"][0]["text"] == "deleted alpha"
    assert of_type(records, "model_response")[-1]["message"]["content"] == "alpha was deleted."
    assert settings["text"] == "GITHUB_TOKEN=***\nAPI_KEY=***\nSTORED=***"

    # The names of what was masked head the turn; never a value.
    [masked] = of_type(records, "masked")
    assert records.index(masked) < records.index(of_type(records, "turn")[0])
    assert {"files: env GITHUB_TOKEN", "files: env API_KEY", "files: env STORED"} <= set(masked["names"])
    assert "files: stored secret FILES_STORED" in masked["names"]
    assert "environment OPENAI_API_KEY" in masked["names"]  # the provider key, read from the environment
    assert not any("MODE" in name for name in masked["names"])
    assert_clean([trace], [PROVIDER_KEY, GITHUB_TOKEN, NAMED_KEY, STORED])


def test_a_replay_sees_an_ordinary_word_change(
    home: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.queue(calls(ToolCall("files__remove", {"name": "alpha"})), text("Done."))
    trace = home / "turn.jsonl"
    assert run(home, llm, trace, "deleted") == 0
    capsys.readouterr()
    changed = write_config(home, "removed")
    assert replay_command([str(trace), "--config", str(changed), "--approve", "allow"]) == 1
    out, _ = capsys.readouterr()
    assert "1 tool result(s) differ from the recording:" in out
    assert "\n-deleted alpha\n+removed alpha\n" in out
