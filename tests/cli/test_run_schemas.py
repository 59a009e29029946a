"""`mcp-desk run` with a server whose tools' schemas are draft-07: the provider gets 2020-12, and a schema
that cannot be used keeps that tool (only) from the model, saying why on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from desktop_app.cli.run import run_command
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.draft07_server import (
    REMOTE_SCHEMA,
    SERVER_NAME,
    STRING_TOOL,
    TOOL_COUNT,
    UNUSABLE_TOOL,
    tool_name,
)

pytestmark = [*LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]
SCRIPT = Path(__file__).resolve().parents[1] / "servers" / "draft07_server.py"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {SERVER_NAME: {"command": sys.executable, "args": [str(SCRIPT)]}}}))
    return path


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node).union(*(_keys(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_keys(v) for v in node))
    return set()


def _strings(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set().union(*(_strings(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_strings(v) for v in node))
    return {node} if isinstance(node, str) else set()


def test_draft07_tools_go_out_as_2020_12_and_the_unusable_one_is_named(
    config: Path, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = {"at": [1, 2], "scale": 2, "unit": "mm", "label": "door"}
    llm.queue(calls(ToolCall(f"{SERVER_NAME}__{tool_name(3)}", arguments)), text("placed"))
    argv = ["--config", str(config), "--model", "openai/scripted", "--api-base", llm.url, "--approve", "allow"]
    assert run_command([*argv, "place shape 3"]) == 0
    first = llm.bodies()[0]
    offered = {t["function"]["name"]: t["function"]["parameters"] for t in first["tools"]}
    ours = {name: schema for name, schema in offered.items() if name.startswith(f"{SERVER_NAME}__")}
    assert sorted(ours) == [f"{SERVER_NAME}__{tool_name(i)}" for i in range(1, TOOL_COUNT + 1)]
    for name, schema in ours.items():
        Draft202012Validator.check_schema(schema)
        assert not {"definitions", "additionalItems", "dependencies"} & _keys(schema), name
        assert not any("draft-07" in s for s in _strings(schema)), name
        assert schema["properties"]["at"] == {"$ref": "#/$defs/point"}
        assert schema["$defs"]["point"]["prefixItems"] == [{"type": "number"}, {"type": "number"}]
        assert schema["$defs"]["point"]["items"] is False
        Draft202012Validator(schema).validate(arguments)  # what the server's schema allows, the offered one does
    assert ours[f"{SERVER_NAME}__{tool_name(3)}"]["dependentSchemas"] == {
        "scale": {"properties": {"unit": {"enum": ["mm", "in"]}}}
    }
    assert ours[f"{SERVER_NAME}__{tool_name(1)}"]["dependentRequired"] == {"scale": ["unit"]}
    assert f"{SERVER_NAME}__{UNUSABLE_TOOL}" not in offered and f"{SERVER_NAME}__{STRING_TOOL}" not in offered
    [result] = tool_messages(llm.bodies()[1])
    assert result["content"] == f"{tool_name(3)} {json.dumps(arguments, sort_keys=True)}"
    captured = capsys.readouterr()
    assert captured.out == "placed\n"
    assert captured.err == (
        f"mcp-desk run: server {SERVER_NAME}: tool {UNUSABLE_TOOL} is not offered to the model: its schema refers"
        f" to a remote schema ($ref '{REMOTE_SCHEMA}'), which MCP Desk does not fetch\n"
        f"mcp-desk run: server {SERVER_NAME}: tool {STRING_TOOL} is not offered to the model: its schema is not an"
        ' object schema (type: "string")\n'
    )
