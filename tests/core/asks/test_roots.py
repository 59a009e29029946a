"""Roots: entries expanded into file:// URIs, per server or by default, and servers told of changes."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import parse_config
from desktop_app.core.root_paths import effective_roots, root_name, root_problem, root_uri
from desktop_app.core.server_entry import server_to_dict
from tests.core.asks.hosting import ERAS, asking_config, asking_host, call_json, everything_config, text_of
from tests.hosting import eventually
from tests.servers.everything import everything_available

pytestmark = pytest.mark.anyio


def test_entries_become_file_uris() -> None:
    home = Path.home()
    assert root_uri("~/notes") == (home / "notes").as_uri()
    assert root_uri("$HOME/a b") == (home / "a b").as_uri() == f"{home.as_uri()}/a%20b"
    assert root_uri("${PROJECTS}/x", {"PROJECTS": "/srv/p"}) == "file:///srv/p/x"
    assert root_uri("$UNSET_VAR_XYZ/x", {}) == Path(os.path.abspath("$UNSET_VAR_XYZ/x")).as_uri()
    assert root_uri("file:///srv/data") == "file:///srv/data"
    assert root_uri("docs") == Path(os.path.abspath("docs")).as_uri()
    assert root_name("file:///srv/my%20data/") == "my data" and root_name("file:///") == "/"
    assert root_problem("https://example.com") == "must be a folder path or a file:// URI"
    assert root_problem("file://srv/data") == "must be a local, absolute file:// URI such as file:///home/me/notes"
    assert root_problem("  ") == "is empty"
    with pytest.raises(ValueError, match=r"root 'https://x\.org' must be"):
        root_uri("https://x.org")


def test_own_roots_win_over_the_defaults_and_extra_ones_are_added() -> None:
    assert effective_roots(None, ["~/a"], ["/tmp/x"]) == ["~/a", "/tmp/x"]
    assert effective_roots(("~/b",), ["~/a"], []) == ["~/b"]
    assert effective_roots((), ["~/a"], ["~/a", "/c"]) == ["~/a", "/c"]  # an empty own list means none


def test_servers_json_roots_and_log_level() -> None:
    text = '{"mcpServers": {"fs": {"command": "x", "roots": ["~/notes", "file:///srv"], "logLevel": "debug"}}}'
    config = parse_config(text, "servers.json")["fs"]
    assert config.roots == ("~/notes", "file:///srv") and config.log_level == "debug"
    assert server_to_dict(config) == {"command": "x", "roots": ["~/notes", "file:///srv"], "logLevel": "debug"}
    assert "roots" not in server_to_dict(replace(config, roots=None, log_level=None))
    bad = '{"mcpServers": {\n "fs": {"command": "x",\n "roots": ["http://no"]}}}'
    with pytest.raises(ConfigError, match=r"line 3: mcpServers.fs.roots\[0\] must be a folder path"):
        parse_config(bad, "servers.json")
    with pytest.raises(ConfigError, match="logLevel must be one of debug, info"):
        parse_config('{"mcpServers": {"fs": {"command": "x", "logLevel": "loud"}}}', "servers.json")


@pytest.mark.parametrize("era", ERAS)
async def test_roots_in_both_eras(era: str, tmp_path: Path) -> None:
    async with asking_host(None, asking_config(era, roots=(str(tmp_path),))) as (host, asker):
        host.asks.default_roots = ("~/ignored-because-the-server-has-its-own",)
        host.asks.extra_roots = ("file:///srv/extra",)
        roots = await call_json(host.connection("asking"), "roots", {})
        assert roots == [
            {"uri": tmp_path.as_uri(), "name": tmp_path.name},
            {"uri": "file:///srv/extra", "name": "extra"},
        ]
        assert asker.asked == []  # the user chose roots beforehand: nobody is asked


@pytest.mark.skipif(not everything_available(), reason="server-everything is not installed")
@pytest.mark.npm
async def test_a_2025_server_is_told_when_its_roots_change(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    async with asking_host(None, everything_config()) as (host, _asker):
        connection = host.connection("everything")
        await host.set_default_roots([str(first)])
        notes = lambda: [e.text for e in connection.log if e.source == "host"]  # noqa: E731
        await eventually(lambda: f"told the server its roots: {first.as_uri()}" in notes())
        assert f"roots changed: {first.as_uri()}" in notes()

        async def listed() -> str:
            return text_of(await connection.call_tool("get-roots-list", {}))

        assert first.as_uri() in await listed()
        client = connection.client
        await host.apply([replace(connection.config, roots=(str(second),))])
        assert connection.client is client  # changed live, not by a restart
        await eventually(lambda: f"told the server its roots: {second.as_uri()}" in notes())
        listing = await listed()
        assert second.as_uri() in listing and first.as_uri() not in listing
