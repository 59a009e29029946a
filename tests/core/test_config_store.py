"""Editing the server list: saved at once, renames, duplicates, import, a broken file left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.server_config import ServerConfig, TransportKind


def stdio(name: str, command: str = "uvx") -> ServerConfig:
    return ServerConfig(name=name, transport=TransportKind.STDIO, command=command, args=("pkg",))


def test_changes_are_saved_and_unknown_keys_kept(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {}, "theme": "dark"}))
    store = ConfigStore(path)
    store.upsert(stdio("a"))
    store.upsert(ServerConfig(name="web", transport=TransportKind.HTTP, url="http://127.0.0.1:1/mcp"))
    assert set(load_config(path).servers) == {"a", "web"}
    assert json.loads(path.read_text())["theme"] == "dark"

    store.upsert(stdio("b", "npx"), previous_name="a")
    assert set(load_config(path).servers) == {"b", "web"}
    assert store.set_disabled("web", True).disabled
    assert load_config(path).servers["web"].disabled
    store.remove("b")
    assert set(ConfigStore(path).servers) == {"web"}


def test_duplicate_name_is_refused(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path / "servers.json")
    store.upsert(stdio("a"))
    with pytest.raises(ConfigError, match="already exists"):
        store.upsert(stdio("a", "other"))
    assert store.servers["a"].command == "uvx"


def test_broken_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"x": {"command": 1}}}')
    store = ConfigStore(path)
    assert store.error is not None and store.servers == {}
    with pytest.raises(ConfigError):
        store.upsert(stdio("a"))
    assert path.read_text() == '{"mcpServers": {"x": {"command": 1}}}'


def test_import_merges_without_clobbering(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path / "servers.json")
    store.upsert(stdio("shared", "mine"))
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(
        json.dumps({"mcpServers": {"shared": {"command": "theirs"}, "new": {"command": "npx", "args": ["x"]}}})
    )
    report = store.import_from(claude)
    assert report.added == ["new"] and report.skipped == ["shared"]
    reloaded = load_config(tmp_path / "servers.json").servers
    assert reloaded["shared"].command == "mine"
    assert reloaded["new"].args == ("x",)
