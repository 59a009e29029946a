"""The turn the trace and replay tests record: a resource read, an approved tool call, a server's form."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from desktop_app.cli.run import run_command
from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import open_secret_store
from tests.core.asks.hosting import ASKING_SCRIPT
from tests.llm_server import ScriptedLLM, ToolCall, calls, text
from tests.servers.ledger_server import TODAY

NOTES_SCRIPT = Path(__file__).resolve().parents[1] / "servers" / "ledger_server.py"
API_KEY = "sk-trace-test-5f4e3d2c1b0a99887766"
STORED_TOKEN = "notes-token-from-the-keyring-7431"
LITERAL = "literal-env-value-9f8e7d6c5b4a"
"""Written into servers.json under an ordinary name: masked for its shape (a random-looking part)."""
NAME_FORM = json.dumps({"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}})


def write_config(path: Path, **notes_env: str) -> Path:
    """The notes server (its token from the secret store, one value written in) and the asking server."""
    notes = {
        "command": sys.executable,
        "args": [str(NOTES_SCRIPT)],
        "env": {"NOTES_TOKEN": "${secret:NOTES_TOKEN}", "NOTES_LITERAL": LITERAL, **notes_env},
        "trusted": True,
    }
    asking = {"command": sys.executable, "args": [str(ASKING_SCRIPT)], "protocol": "legacy"}
    path.write_text(json.dumps({"mcpServers": {"notes": notes, "asking": asking}}))
    return path


def queue_turn(llm: ScriptedLLM) -> None:
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "notes://today"})),
        calls(ToolCall("notes__count_words", {"text": TODAY})),
        calls(ToolCall("asking__ask_form", {"schema": NAME_FORM, "message": "Who are you?"})),
        text("Nine words, and hello Ada."),
    )


def traced_run(home: Path, llm: ScriptedLLM, trace: Path, *extra: str) -> int:
    open_secret_store(data_dir()).set("NOTES_TOKEN", STORED_TOKEN)
    config = write_config(home / "servers.json")
    args = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, "--approve", "allow"]
    return run_command([*args, "--elicit", "defaults", "--trace", str(trace), *extra, "Plan my day"])
