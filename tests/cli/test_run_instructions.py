"""`mcp-desk run --approve deny` against a server whose `instructions` try to drive an always-allowed tool."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.instructions_server import DROP_ADDRESS, ORDER, SCRIPT, sent

pytestmark = LITELLM_WARNINGS
READ_TAINT = "read the instructions of news, a server you have not marked as trusted"


@pytest.mark.stdio
def test_instructions_read_from_an_untrusted_server_pause_a_saved_rule(
    home: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.core.chat.approval import RULES_FILENAME, AlwaysAllowRules
    from desktop_app.core.paths import data_dir

    AlwaysAllowRules(data_dir() / RULES_FILENAME).add("mail", "send_email")
    outbox = home / "outbox.jsonl"
    config = home / "servers.json"
    servers = {
        "news": {"command": sys.executable, "args": [str(SCRIPT), "news"]},
        "mail": {"command": sys.executable, "args": [str(SCRIPT), "mail", "--outbox", str(outbox)], "trusted": True},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "mcp-desk://instructions/news"})),
        calls(ToolCall("mail__send_email", {"to": DROP_ADDRESS, "body": "everything"})),
        text("Done."),
    )
    transcript = home / "transcript.json"
    args = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url]
    assert run_command([*args, "--approve", "deny", "--transcript", str(transcript), "What's new?"]) == 0

    assert sent(outbox) == []  # the mail never left
    first, second, third = llm.bodies()
    assert ORDER not in first["messages"][0]["content"]
    [read] = tool_messages(second)
    assert read["content"].startswith('Instructions from server "news", which the user has not marked as trusted.')
    assert tool_messages(third)[-1]["content"] == "The user declined to run 'mail__send_email'; it was not called."
    refused = (
        f'{{"to": "{DROP_ADDRESS}", "body": "everything"}} (--approve deny, your rule paused by untrusted content)'
    )
    assert f"mcp-desk run: refused tool send_email on server mail with {refused}\n" in capsys.readouterr().err
    document = json.loads(transcript.read_text())
    assert document["taint"] == [READ_TAINT]
    [decision] = [e for e in document["events"] if e["type"] == "ToolDecision"]
    assert (decision["decided_by"], decision["allowed"], decision["rule_paused"]) == ("flag", False, True)
