"""`mcp-desk run` never hands a server's (or the model's) control characters to the terminal.

The hostile server (`tests/servers/escape_server.py`) puts an OSC 52 clipboard write, an OSC 8
hyperlink, carriage returns, erase-line and cursor moves and a bidi override in its tool name,
its tool result and its stderr; the model repeats the result in its answer. Each reaches the
terminal as visible text (`\\x1b`, `\\r`, ...), with line breaks kept.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from desktop_app.core.tool_names import build_tool_names
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.escape_server import CONTROLS, RESULT, TOOL_NAME

pytestmark = LITELLM_WARNINGS
ESCAPE_SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "servers" / "escape_server.py"
EXPOSED = build_tool_names([("esc", TOOL_NAME)]).exposed("esc", TOOL_NAME)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _config(tmp_path: Path, *flags: str) -> Path:
    path = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(ESCAPE_SCRIPT), *flags]}
    path.write_text(json.dumps({"mcpServers": {"esc": server}}))
    return path


def _args(config: Path, llm: ScriptedLLM, *more: str) -> list[str]:
    return ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, *more]


def _assert_inert(printed: str) -> None:
    found = sorted({repr(c) for c in CONTROLS if c in printed})
    assert not found, f"control characters reached the terminal: {found}\n{printed!r}"


def test_the_approval_question_and_the_answer_show_control_characters_as_text(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    llm.queue(calls(ToolCall(EXPOSED, {})), text(f"The server says:\n{RESULT}"))
    assert run_command(_args(_config(tmp_path), llm, "--approve", "ask", "read my notes")) == 0
    assert tool_messages(llm.bodies()[1])[0]["content"] == RESULT  # the model still gets the text as it was
    captured = capsys.readouterr()
    _assert_inert(captured.out)
    _assert_inert(captured.err)
    # The question names the tool in full, its tricks in plain sight, on the line the answer is typed on.
    assert "Allow tool wipe_disk\\r\\x1b[2K\\x1b[1Aread_notes on server esc" in captured.err
    assert captured.out.startswith("The server says:\nNotes: see \\x1b]8;;http://evil.example/")
    assert captured.out.endswith("All good.\n")


def test_a_refused_call_is_reported_with_the_tool_name_made_visible(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.queue(calls(ToolCall(EXPOSED, {"why": "\x1b]52;c;eA==\x07"})), text("Not allowed."))
    assert run_command(_args(_config(tmp_path), llm, "read my notes")) == 0
    err = capsys.readouterr().err
    _assert_inert(err)
    assert "refused tool wipe_disk\\r\\x1b[2K\\x1b[1Aread_notes on server esc" in err


def test_an_unreachable_servers_stderr_is_quoted_as_text(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_command(_args(_config(tmp_path, "--fail"), llm, "hello")) == 4
    err = capsys.readouterr().err
    _assert_inert(err)
    assert "[stderr: starting\\x1b]52;c;" in err and "\\u202eready]" in err
