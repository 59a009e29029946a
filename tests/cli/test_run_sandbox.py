"""`mcp-desk run` where a sandboxed server cannot be confined: one stderr line naming the server, why and the
`--no-sandbox` flag; the flag runs it unconfined this time, and an organisation that requires the sandbox
refuses the flag."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.cli.run import run_command
from desktop_app.core.sandbox import probe as probe_module
from desktop_app.core.sandbox.probe import INSTALL_HINT, SandboxSupport
from tests.hosting import FIXTURE_SCRIPT
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.policy_files import put_policy

pytestmark = [*LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]
PROBLEM = f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}; and this kernel has no Landlock"


@pytest.fixture
def no_tier(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process finds no sandbox, as a system without bubblewrap or Landlock would."""
    probe_module.system_support.cache_clear()
    monkeypatch.setattr(probe_module, "probe", lambda: SandboxSupport(None, problem=PROBLEM))
    yield
    probe_module.system_support.cache_clear()


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)], "sandboxEnabled": True}
    path.write_text(json.dumps({"mcpServers": {"fx": entry}}))
    return path


def _args(config: Path, llm: ScriptedLLM) -> list[str]:
    return ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url]


@pytest.mark.stdio
def test_without_a_sandbox_the_server_does_not_start_and_one_line_names_the_flag(
    no_tier: None, tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_command([*_args(_config(tmp_path), llm), "hi"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "server 'fx' is sandboxed (sandboxEnabled) but cannot start" in err
    assert INSTALL_HINT in err and "pass --no-sandbox fx" in err


def test_the_flag_runs_it_unconfined_this_time_and_saves_nothing(
    no_tier: None, tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    before = config.read_text()
    llm.queue(text("hello"))
    assert run_command([*_args(config, llm), "--no-sandbox", "fx", "hi"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "hello\n" and "sandbox" not in captured.err
    assert config.read_text() == before


def test_the_flag_is_refused_for_an_unknown_server_and_where_the_policy_requires_the_sandbox(
    tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    assert run_command([*_args(config, llm), "--no-sandbox", "nope", "hi"]) == 2
    assert "--no-sandbox nope: no local server of that name is configured" in capsys.readouterr().err
    put_policy(tmp_path, monkeypatch, {"sandbox": {"required": True}})
    assert run_command([*_args(config, llm), "--no-sandbox", "fx", "hi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--no-sandbox is refused: blocked by your organisation's policy" in err and "(sandbox.required)" in err
