"""`disabledTools` on the command line: `mcp-desk run` never offers a switched-off tool, and an update keeps them."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.cli.install import install_command
from desktop_app.cli.run import run_command
from tests.hosting import FIXTURE_SCRIPT
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages, tool_names
from tests.servers.registry_documents import populate
from tests.servers.registry_fixture import RegistryFixture, running_registry

pytestmark = LITELLM_WARNINGS
HELLO = "io.github.mcp-desk-tests/hello"


@pytest.mark.stdio
def test_run_never_offers_a_switched_off_tool_and_refuses_a_call_to_it(
    tmp_path: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)], "disabledTools": ["echo"]}
    config.write_text(json.dumps({"mcpServers": {"fx": entry}}))
    # A model that knows the name anyway (from an earlier chat, or guessing) gets no call through.
    llm.queue(calls(ToolCall("fx__echo", {"text": "hi"})), text("It is not there."))
    args = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, "--approve", "allow"]
    assert run_command([*args, "Echo hi"]) == 0
    first, second = llm.bodies()
    assert "fx__add" in tool_names(first) and "fx__echo" not in tool_names(first)
    [refused] = tool_messages(second)
    assert refused["content"].startswith("There is no tool named 'fx__echo'.")
    assert "fx__echo" not in refused["content"].partition("Available tools:")[2]
    assert capsys.readouterr().out.endswith("It is not there.\n")


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        yield fixture


def test_an_update_from_the_registry_keeps_the_switched_off_tools(
    registry: RegistryFixture, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "servers.json"
    base = [HELLO, "--registry", registry.url, "--config", str(config), "--yes"]
    assert install_command([*base, "--version", "0.9.0", "--set", "HELLO_TOKEN=t"]) == 0
    document = json.loads(config.read_text())
    document["mcpServers"]["hello"]["disabledTools"] = ["shout", "whisper"]  # switched off by hand
    config.write_text(json.dumps(document, indent=2))

    assert install_command(base) == 0
    assert "(update from 0.9.0)" in capsys.readouterr().out
    entry = json.loads(config.read_text())["mcpServers"]["hello"]
    assert entry["origin"]["version"] == "1.0.0" and entry["disabledTools"] == ["shout", "whisper"]
