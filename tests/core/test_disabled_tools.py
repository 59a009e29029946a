"""Tools switched off (`disabledTools`): read and written by hand, kept by every rewrite, left out by the host.

The host is the one place they are left out: its catalog (what the model, app views and
`mcp-desk run` use) lacks them, while the connection's own listing keeps every tool for the panel.
Switching a tool reconnects nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config, parse_config
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.events import CatalogChanged, ServerStateChanged
from desktop_app.core.host import ServerHost
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_entry import server_to_dict
from tests.hosting import eventually

ANNOTATED = Path(__file__).resolve().parents[1] / "servers" / "annotated_server.py"


def stdio(name: str, **options: object) -> ServerConfig:
    return ServerConfig(name=name, transport=TransportKind.STDIO, command="uvx", args=("pkg",), **options)  # type: ignore[arg-type]


def test_disabled_tools_are_read_checked_and_written_back(tmp_path: Path) -> None:
    text = json.dumps(
        {"mcpServers": {"gh": {"command": "npx", "disabledTools": ["delete_repo", "push", "delete_repo"]}}}, indent=2
    )
    [config] = parse_config(text, "servers.json").values()
    assert config.disabled_tools == ("delete_repo", "push")  # each once, in the user's order
    assert server_to_dict(config)["disabledTools"] == ["delete_repo", "push"]
    assert "disabledTools" not in server_to_dict(replace(config, disabled_tools=()))

    wrong = (
        (["ok", 3], "servers.json, line 7: mcpServers.gh.disabledTools[1] must be a string"),
        ([" "], "servers.json, line 6: mcpServers.gh.disabledTools[0] must be a tool's name"),
    )
    for bad, message in wrong:
        broken = json.dumps({"mcpServers": {"gh": {"command": "npx", "disabledTools": bad}}}, indent=2)
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_config(broken, "servers.json")
    with pytest.raises(ConfigError, match="disabledTools must be a list of strings"):
        parse_config('{"mcpServers": {"gh": {"command": "npx", "disabledTools": "push"}}}', "servers.json")


def test_switched_off_tools_survive_edits_renames_imports_and_hand_edits(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"gh": {"command": "uvx", "args": ["pkg"], "disabledTools": ["push"]}}}))
    store = ConfigStore(path)
    assert store.switch_tool("gh", "delete_repo", on=False).disabled_tools == ("push", "delete_repo")
    assert store.switch_tool("gh", "push", on=True).disabled_tools == ("delete_repo",)
    assert json.loads(path.read_text())["mcpServers"]["gh"]["disabledTools"] == ["delete_repo"]

    # An edit (which does not show the tools) and a rename keep them; so does an update's fresh entry.
    store.upsert(stdio("github", timeout=60.0), previous_name="gh")
    assert store.servers["github"].disabled_tools == ("delete_repo",)
    installed = stdio("github", origin={"registry": "https://r.example", "name": "io.x/gh", "version": "2.0.0"})
    store.upsert(installed, previous_name="github")
    assert store.servers["github"].disabled_tools == ("delete_repo",)
    assert load_config(path).servers["github"].disabled_tools == ("delete_repo",)

    # Importing the same server from another client (which knows nothing of them) keeps ours.
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {"github": server_to_dict(replace(installed, disabled_tools=()))}}))
    report = store.import_from(claude)
    assert report.unchanged == ["github"] and report.added == [] and report.skipped == []
    assert store.servers["github"].disabled_tools == ("delete_repo",)


async def _host_scenario() -> None:
    config = ServerConfig(
        name="desk",
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(ANNOTATED), "--name", "desk"),
        disabled_tools=("delete_item", "not_listed_yet"),
    )
    host = ServerHost(policy=RestartPolicy(max_attempts=0))
    states: list[ServerStateChanged] = []
    offers: list[CatalogChanged] = []
    host.bus.subscribe(ServerStateChanged, states.append)
    host.bus.subscribe(CatalogChanged, offers.append)
    host.start([config])
    try:
        await host.wait_settled(60)
        connection = host.connection("desk")
        listed = [tool.name for tool in connection.catalog.tools]  # type: ignore[union-attr]
        assert "delete_item" in listed and "lookup" in listed
        offered = [tool.name for tool in host.catalog.servers["desk"].tools]
        assert offered == [name for name in listed if name != "delete_item"]
        assert host.catalog.tool("desk__delete_item") is None and host.catalog.tool("desk__lookup") is not None

        states.clear()
        host.set_disabled_tools("desk", ["lookup"])
        assert host.catalog.tool("desk__delete_item") is not None and host.catalog.tool("desk__lookup") is None
        assert offers[-1].server == "desk" and offers[-1].catalog is connection.catalog  # views refresh

        # A new configuration that differs only in its switched-off tools (a hand edit, the editor) reconnects
        # nothing either; one that changes more takes the tools at once too.
        await host.apply([replace(config, disabled_tools=("add_item",))])
        assert host.catalog.tool("desk__add_item") is None and host.catalog.tool("desk__lookup") is not None
        assert states == [] and host.connection("desk") is connection
        await host.apply([replace(config, disabled_tools=(), log_level="debug")])
        await host.wait_settled(60)
        await eventually(lambda: host.catalog.tool("desk__add_item") is not None, what="add_item offered again")
        assert len(host.catalog.servers["desk"].tools) == len(listed)
    finally:
        await host.stop_all()


@pytest.mark.stdio
def test_the_host_leaves_switched_off_tools_out_without_reconnecting() -> None:
    asyncio.run(_host_scenario())
