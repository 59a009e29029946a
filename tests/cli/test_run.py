"""`mcp-desk run` against the real fixture server over stdio and the scripted provider."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from tests.core.sandbox.conftest import PROBE_SCRIPT, Home, home  # noqa: F401  (the planted home fixture)
from tests.hosting import FIXTURE_SCRIPT
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, failure, text, tool_messages
from tests.servers.fixture_server import LONG_END_MARKER, STARTUP_LINE, long_text

pytestmark = [*LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]
ROOT = Path(__file__).resolve().parents[2]
ANNOTATED_SCRIPT = ROOT / "tests" / "servers" / "annotated_server.py"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}}}))
    return path


def base_args(config: Path, llm: ScriptedLLM) -> list[str]:
    return ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url]


def test_end_to_end_in_a_subprocess(config: Path, llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "fixture://long"})),
        text("It ends with ", "END-OF-LONG-RESOURCE."),
    )
    transcript = tmp_path / "transcript.json"
    # The real `mcp-desk run`, a process of its own (this file's one): exit code, only the answer on stdout.
    command = [sys.executable, "-m", "desktop_app", "run", *base_args(config, llm), "--transcript", str(transcript)]
    done = subprocess.run(
        [*command, "How does fixture://long end?"],
        cwd=ROOT,
        env={**os.environ, "OPENAI_API_KEY": "sk-test"},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It ends with END-OF-LONG-RESOURCE.\n"
    assert done.stderr == ""
    document = json.loads(transcript.read_text())
    assert document["model"] == "openai/scripted"
    # The messages exactly as last sent: the second request's body.
    assert document["messages"] == llm.bodies()[1]["messages"]
    [result] = tool_messages(llm.bodies()[1])
    assert result["content"] == long_text()
    types = [event["type"] for event in document["events"]]
    assert types[:3] == ["Usage", "ToolCallStarted", "ResourceRead"]
    assert types[-1] == "TurnFinished" and document["events"][-1]["reason"] == "stop"
    read = document["events"][2]
    assert read["contents"][0]["uri"] == "fixture://long" and "text" not in read["contents"][0]


@pytest.mark.stdio
def test_tool_calls_are_denied_by_default(config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]) -> None:
    llm.queue(calls(ToolCall("fx__echo", {"text": "hi"})), text("I was not allowed."))
    assert run_command([*base_args(config, llm), "echo hi"]) == 0
    [result] = tool_messages(llm.bodies()[1])
    assert result["content"].startswith("The user declined to run 'fx__echo'")
    captured = capsys.readouterr()
    assert captured.out == "I was not allowed.\n"
    assert captured.err == 'mcp-desk run: refused tool echo on server fx with {"text": "hi"} (--approve deny)\n'


def test_allow_and_ask(
    config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    llm.queue(calls(ToolCall("fx__add", {"a": 2, "b": 40})), text("42"))
    assert run_command([*base_args(config, llm), "--approve", "allow", "add"]) == 0
    assert tool_messages(llm.bodies()[1])[0]["content"] == "42"

    monkeypatch.setattr(sys, "stdin", io.StringIO("y\nnot with that text\n"))
    llm.queue(calls(ToolCall("fx__add", {"a": 1, "b": 1}), ToolCall("fx__echo", {"text": "no"})), text("done"))
    assert run_command([*base_args(config, llm), "--approve", "ask", "add and echo"]) == 0
    added, echoed = tool_messages(llm.bodies()[3])
    assert added["content"] == "2"
    assert echoed["content"] == "The user declined: not with that text\n(The tool 'fx__echo' was not called.)"
    err = capsys.readouterr().err
    said = "(fx says: read-only, idempotent, closed world)"
    assert f'Allow tool add on server fx {said} with {{"a": 1, "b": 1}}? [y/N, or a reason to decline]' in err
    # fx is not trusted: its result is untrusted content, and the next question says so.
    assert "Untrusted content is in this conversation (result of add on fx" in err


def test_saved_rules_trust_and_taint(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from desktop_app.core.chat.approval import RULES_FILENAME, AlwaysAllowRules
    from desktop_app.core.paths import data_dir

    AlwaysAllowRules(data_dir() / RULES_FILENAME).add("desk", "delete_item")
    server = [sys.executable, str(ANNOTATED_SCRIPT)]
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "desk": {"command": server[0], "args": [*server[1:], "--name", "desk"], "trusted": True},
                    "web": {"command": server[0], "args": [*server[1:], "--name", "web"]},
                }
            }
        )
    )
    llm.queue(
        calls(ToolCall("desk__delete_item", {"item_id": "banana"})),
        calls(ToolCall("read_resource", {"uri": "web://injected"})),
        calls(ToolCall("desk__delete_item", {"item_id": "everything"})),
        text("Done."),
    )
    transcript = tmp_path / "transcript.json"
    args = [*base_args(config, llm), "--transcript", str(transcript), "tidy up"]
    assert run_command(args) == 0
    results = [m["content"] for m in tool_messages(llm.bodies()[-1])]
    assert results[0] == "Deleted banana."  # the saved "always allow" rule covers it
    assert results[2] == "The user declined to run 'desk__delete_item'; it was not called."  # paused: denied
    document = json.loads(transcript.read_text())
    assert document["taint"] == ["read web://injected from web, a server you have not marked as trusted"]
    decisions = [e for e in document["events"] if e["type"] == "ToolDecision"]
    assert [(d["decided_by"], d["allowed"], d["rule_paused"]) for d in decisions] == [
        ("rule", True, False),
        ("flag", False, True),
    ]
    refused = '{"item_id": "everything"} (--approve deny, your rule paused by untrusted content)'
    assert f"mcp-desk run: refused tool delete_item on server desk with {refused}\n" in capsys.readouterr().err
    asked = [e for e in document["events"] if e["type"] == "ApprovalNeeded"]
    assert [(a["arguments"], a["rule_paused"]) for a in asked] == [({"item_id": "everything"}, True)]

    # --approve allow still allows everything, and the transcript still says taint was in force.
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "web://injected"})),
        calls(ToolCall("desk__delete_item", {"item_id": "everything"})),
        text("Done."),
    )
    assert run_command([*base_args(config, llm), "--approve", "allow", "--transcript", str(transcript), "go"]) == 0
    assert tool_messages(llm.bodies()[-1])[-1]["content"] == "Deleted everything."
    document = json.loads(transcript.read_text())
    [decision] = [e for e in document["events"] if e["type"] == "ToolDecision"]
    assert (decision["decided_by"], decision["allowed"], decision["rule_paused"]) == ("flag", True, True)
    assert decision["taint"] == document["taint"][0]


def test_attachment(config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]) -> None:
    llm.queue(text("It is long."))
    assert run_command([*base_args(config, llm), "--attach", "fixture://long", "summarize"]) == 0
    user = llm.bodies()[0]["messages"][1]["content"]
    assert user.startswith("summarize\n\nAttached resource fixture://long (long, text/plain):\nline 00001")
    assert user.endswith(LONG_END_MARKER)


def test_provider_error_exits_3(config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]) -> None:
    llm.queue(failure(401, "invalid api key"))
    assert run_command([*base_args(config, llm), "hi"]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "mcp-desk run: openai/scripted: authentication failed (HTTP 401): invalid api key\n"


def test_unreachable_servers_exit_4(tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"ghost": {"command": "/nonexistent/mcp-server-xyz"}}}))
    assert run_command([*base_args(config, llm), "hi"]) == 4
    err = capsys.readouterr().err
    assert err == "mcp-desk run: no server could be reached (ghost: command not found: /nonexistent/mcp-server-xyz)\n"
    assert llm.requests == []


def test_a_server_that_exits_says_how_and_what_it_printed(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT), "--exit-immediately", "3"]}
    config.write_text(json.dumps({"mcpServers": {"fx": server}}))
    assert run_command([*base_args(config, llm), "hi"]) == 4
    assert capsys.readouterr().err == (
        "mcp-desk run: no server could be reached (fx: the server exited with code 3 "
        f"[stderr: {STARTUP_LINE} | fixture server: exiting immediately with code 3])\n"
    )


def test_max_iterations_exits_1_with_the_stop_message(
    config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.queue(calls(ToolCall("read_resource", {"uri": "fixture://data.json"})))
    assert run_command([*base_args(config, llm), "--max-iterations", "1", "loop"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "the iteration limit" in captured.err


@pytest.mark.parametrize(
    ("extra", "message", "expected"),
    [
        (["--max-iterations", "0"], "hi", "max_iterations must be at least 1"),
        ([], "   ", "the message is empty"),
        (["--attach", "fixture://nope"], "hi", "Cannot attach fixture://nope: Resource 'fixture://nope' not found"),
    ],
)
def test_usage_errors_exit_2(
    config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str], extra: list[str], message: str, expected: str
) -> None:
    assert run_command([*base_args(config, llm), *extra, message]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcp-desk run: ") and expected in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_config_errors_exit_2(tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "absent.json"
    assert run_command([*base_args(missing, llm), "hi"]) == 2
    assert capsys.readouterr().err == f"mcp-desk run: config file not found: {missing}\n"
    broken = tmp_path / "servers.json"
    broken.write_text('{"mcpServers": {"fx": {"command": 5}}}')
    assert run_command([*base_args(broken, llm), "hi"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "mcp-desk run: configuration error: servers.json, line 1: mcpServers.fx.command must be a non-empty string\n"
    )
    assert run_command(["hi"]) == 2  # --model is required
    assert "--model" in capsys.readouterr().err


def test_saved_app_settings_and_stored_key_are_used(
    config: Path, llm: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.cli import run as cli
    from desktop_app.core.app_settings import AppSettings, default_settings_path, save_settings
    from desktop_app.core.model.settings import ModelSettings
    from desktop_app.core.secret_store import open_secret_store

    store = open_secret_store(tmp_path / "secrets", prefer="plaintext-file")
    store.set("LLM_API_KEY_COMPATIBLE", "sk-from-the-store")
    monkeypatch.setattr(cli, "_secrets", lambda: store)
    monkeypatch.delenv("OPENAI_API_KEY")
    saved = ModelSettings("openai/scripted", api_base=llm.url, api_key_secret="LLM_API_KEY_COMPATIBLE", max_tokens=77)
    save_settings(default_settings_path(), AppSettings(saved, provider="compatible"))
    try:
        llm.queue(text("Saved settings work."))
        assert run_command(["--config", str(config), "hello"]) == 0
        assert capsys.readouterr().out == "Saved settings work.\n"
        [request] = llm.requests
        assert request.headers["authorization"] == "Bearer sk-from-the-store"
        assert request.body["max_tokens"] == 77
    finally:
        default_settings_path().unlink()


def test_a_local_server_needs_no_key_and_the_apps_key_is_used_when_saved(
    config: Path, llm: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.cli import run as cli
    from desktop_app.core.model.settings import NO_KEY_PLACEHOLDER
    from desktop_app.core.secret_store import open_secret_store

    store = open_secret_store(tmp_path / "secrets", prefer="plaintext-file")
    monkeypatch.setattr(cli, "_secrets", lambda: store)
    monkeypatch.delenv("OPENAI_API_KEY")
    llm.queue(text("No key needed."), text("Saved key used."))
    assert run_command([*base_args(config, llm), "hello"]) == 0
    store.set("LLM_API_KEY_COMPATIBLE", "sk-saved-for-compatible")
    assert run_command([*base_args(config, llm), "hello"]) == 0
    assert capsys.readouterr().out == "No key needed.\nSaved key used.\n"
    assert [r.headers["authorization"] for r in llm.requests] == [
        f"Bearer {NO_KEY_PLACEHOLDER}",
        "Bearer sk-saved-for-compatible",
    ]


def test_no_model_anywhere_is_a_usage_error(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["--config", str(config), "hello"]) == 2
    assert "no model: pass --model" in capsys.readouterr().err


def test_a_sandboxed_server_is_named_so_on_stderr(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sandboxed.json"
    entry = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)], "sandboxEnabled": True}
    path.write_text(json.dumps({"mcpServers": {"fx": entry}}))
    llm.queue(text("Fine."))
    assert run_command([*base_args(path, llm), "hello"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "Fine.\n"
    assert "mcp-desk run: server fx: sandboxed: bubblewrap\n" in captured.err


def test_a_write_the_sandbox_refused_is_one_stderr_line_naming_the_key(
    tmp_path: Path,
    llm: ScriptedLLM,
    capsys: pytest.CaptureFixture[str],
    home: Home,  # noqa: F811
) -> None:
    drafts = home.root / "drafts"
    drafts.mkdir()
    path = tmp_path / "sandboxed.json"
    entry = {
        "command": sys.executable,
        "args": [str(PROBE_SCRIPT), "--write-at-start", str(drafts / "out.txt")],
        "sandboxEnabled": True,
    }
    path.write_text(json.dumps({"mcpServers": {"probe": entry}}))
    assert run_command([*base_args(path, llm), "hello"]) == 4
    err = capsys.readouterr().err
    said = f'the sandbox refused writing to {drafts}; to allow it, add "{drafts}" to allowWrite'
    line = f"mcp-desk run: server 'probe': {said}\n"
    assert err.count("the sandbox refused") == 1 and line in err, err
