"""`servers.allow`: which servers an entry lets run, and how a refusal names the rule."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.config_store import ConfigStore
from desktop_app.core.install_records import InstallRecords, records_path
from desktop_app.core.policy.document import parse_policy
from desktop_app.core.policy.in_force import PolicyInForce
from desktop_app.core.policy.servers import server_refusal
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.policy_files import ISSUE_SHAPE

SOURCE = Path("policy.json")
REGISTRY = "https://registry.acme.example"


def stdio(command: str, *args: str, env: dict[str, str] | None = None, **origin: str) -> ServerConfig:
    return ServerConfig("s", TransportKind.STDIO, command=command, args=args, env=env or {}, origin=origin)


def remote(url: str) -> ServerConfig:
    return ServerConfig("r", TransportKind.HTTP, url=url)


def policy(text: str) -> PolicyInForce:
    rules = parse_policy(text, SOURCE)
    return PolicyInForce(rules, source=SOURCE)


def no_path(_name: str) -> str | None:
    return None


ISSUE = PolicyInForce(parse_policy(json.dumps(ISSUE_SHAPE, indent=1), SOURCE), source=SOURCE)


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own record of installs (the app's data folder)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def installed(config: ServerConfig) -> ServerConfig:
    """`config` as the app's install leaves it: saved, and written in the record of installs."""
    InstallRecords().record(config)
    return config


@pytest.mark.parametrize(
    ("config", "allowed"),
    [
        (stdio("/usr/bin/npx", "-y", "@acme/weather"), True),
        (stdio("npx", "-y", "@acme/weather@1.2.0"), True),
        (stdio("npx", "-y", "@evil/weather"), False),
        (stdio("npx", "-y", "@acme/weather", "--more"), False),  # as many arguments as patterns
        (stdio("npx", "@acme/weather"), False),
        (stdio("node", "-y", "@acme/weather"), False),
        (stdio("npx", "-y", "@acme/weather", env={"NODE_OPTIONS": "--require /tmp/x.js"}), False),
        (stdio("uvx", "anything", registry=REGISTRY, name="io.github.acme/tool"), True),
        (stdio("uvx", "anything", registry=REGISTRY + "/", name="io.github.acme/tool"), True),
        (stdio("uvx", "anything", registry="https://elsewhere.example", name="io.github.acme/tool"), False),
        (stdio("uvx", "anything", registry=REGISTRY, name="io.github.evil/tool"), False),
        (remote("https://mcp.acme.example/mcp"), True),
        (remote("https://MCP.acme.example:443/other"), True),  # the same origin, spelt out
        (remote("https://mcp.acme.example:8443/mcp"), False),
        (remote("http://mcp.acme.example/mcp"), False),
        (remote("https://mcp.acme.example.evil.example/mcp"), False),
        (remote("https://evil.example/?https://mcp.acme.example"), False),
    ],
)
def test_the_issue_shape_allows_what_it_lists(config: ServerConfig, allowed: bool) -> None:
    refusal = ISSUE.server_refusal(installed(config) if config.origin else config)
    assert (refusal is None) is allowed, refusal


def test_a_refusal_names_the_rule_that_refused() -> None:
    near = ISSUE.server_refusal(stdio("npx", "-y", "@evil/weather"))
    assert str(near) == (
        "blocked by your organisation's policy: 's' is not on the list of servers allowed to run: it allows npx only"
        " with the arguments -y @acme/* (servers.allow[2])"
    )
    assert near is not None and near.line == 10
    off_list = ISSUE.server_refusal(stdio("/opt/tools/runner", "x"))
    assert str(off_list) == (
        "blocked by your organisation's policy: 's' (command runner) is not on the list of servers allowed to run"
        " (servers.allow)"
    )
    assert str(ISSUE.server_refusal(remote("https://evil.example/mcp"))) == (
        "blocked by your organisation's policy: 'r' (address https://evil.example) is not on the list of servers"
        " allowed to run (servers.allow)"
    )
    launched = ISSUE.server_refusal(stdio("npx", "-y", "@acme/w", env={"NODE_OPTIONS": "-r x", "path": "/tmp"}))
    assert str(launched) == (
        "blocked by your organisation's policy: 's' sets NODE_OPTIONS, path, which change which program runs or what"
        " it loads; the list allows the program, not that (servers.allow[2])"
    )


def test_paths_wildcards_and_any_further_arguments(tmp_path: Path) -> None:
    tool = tmp_path / "bin" / "acme-tool"
    rules = policy(
        "{"
        '"servers": {"allow": ['
        f'{{"command": "{tool}"}},'
        '{"command": "/opt/acme/*/server", "args": ["--port", "8*", "**"]},'
        '{"url": "https://*.acme.example"},'
        '{"url": "http://127.0.0.1:8123"}'
        "]}}"
    )
    assert rules.server_refusal(stdio(str(tool), "any", "args")) is None
    assert rules.server_refusal(stdio(str(tmp_path / "bin" / ".." / "bin" / "acme-tool"))) is None
    assert rules.server_refusal(stdio("acme-tool"), which=lambda _n: str(tool)) is None  # a bare name, as PATH finds it
    assert rules.server_refusal(stdio("acme-tool"), which=no_path) is not None
    assert rules.server_refusal(stdio("./bin/acme-tool"), which=no_path) is not None  # relative: anyone's folder
    assert rules.server_refusal(stdio(str(tmp_path / "elsewhere" / "acme-tool"))) is not None
    assert rules.server_refusal(stdio("/opt/acme/v2/server", "--port", "8080")) is None
    assert rules.server_refusal(stdio("/opt/acme/v2/server", "--port", "8080", "--verbose", "x")) is None
    assert rules.server_refusal(stdio("/opt/acme/v2/server", "--port")) is not None
    assert rules.server_refusal(stdio("/opt/acme/v2/server", "--port", "9090")) is not None
    assert rules.server_refusal(remote("https://eu.mcp.acme.example/mcp")) is None
    assert rules.server_refusal(remote("https://acme.example/mcp")) is not None  # subdomains only
    assert rules.server_refusal(remote("https://evilacme.example/mcp")) is not None
    assert rules.server_refusal(remote("http://127.0.0.1:8123/mcp")) is None
    assert rules.server_refusal(remote("http://127.0.0.1:8124/mcp")) is not None
    # A command entry never lets a remote server through, nor a URL entry a local one.
    assert server_refusal(rules.rules, stdio("https://eu.mcp.acme.example")) is not None


def test_installs_ask_the_same_rules_plus_bundles_and_the_registry() -> None:
    allowed = stdio("npx", "-y", "@acme/weather", registry=REGISTRY, name="io.github.acme/weather", package="npm")
    assert ISSUE.install_refusal(allowed, bundle=False) is None
    assert ISSUE.install_refusal(allowed, bundle=True) == (
        "blocked by your organisation's policy: bundles (.mcpb files) cannot be installed (features.bundles)"
    )
    elsewhere = stdio("npx", "-y", "@acme/weather", registry="https://registry.modelcontextprotocol.io", name="x/y")
    assert ISSUE.install_refusal(elsewhere, bundle=False) == (
        "blocked by your organisation's policy: servers come only from the registry https://registry.acme.example"
        " (registry)"
    )
    assert ISSUE.registry_refusal(REGISTRY + "/v0.1") is None
    assert ISSUE.registry_url("https://registry.modelcontextprotocol.io") == REGISTRY
    blocked = ISSUE.install_refusal(remote("https://evil.example/mcp"), bundle=False)
    assert blocked is not None and blocked.endswith("is not on the list of servers allowed to run (servers.allow)")


def test_a_registry_rule_believes_only_an_origin_the_app_recorded_at_its_install(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An imported file or a hand edit can write any origin: only the app's record of its install backs one."""
    origin = {"registry": REGISTRY, "name": "io.github.acme/weather", "version": "1.0.0", "package": "npm"}
    real = ServerConfig("weather", TransportKind.STDIO, command="/usr/bin/uvx", args=("acme-weather",), origin=origin)
    forged = ServerConfig("weather", TransportKind.STDIO, command="python3", args=("evil.py",), origin=origin)
    assert ISSUE.server_refusal(forged) is not None  # nothing recorded: the origin is only text
    installed(real)
    assert ISSUE.server_refusal(real) is None
    assert ISSUE.server_refusal(forged) is not None  # the same name and origin, another launch
    assert ISSUE.server_refusal(replace(real, args=("acme-weather", "--evil"))) is not None  # edited since
    assert ISSUE.server_refusal(replace(real, name="other")) is not None  # another entry copying the origin
    other_name = replace(real, origin={**origin, "name": "io.github.acme/other"})
    assert ISSUE.server_refusal(other_name) is not None  # the record pins the origin's name too
    # A damaged record never stops the app: it backs nothing, and says so in the log.
    records_path().write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert ISSUE.server_refusal(real) is not None
    assert "cannot be read, so it backs no install" in caplog.text
    records_path().write_text('{"servers": []}')
    assert ISSUE.server_refusal(real) is not None
    installed(real)  # the next install writes a sound file again
    assert ISSUE.server_refusal(real) is None
    assert records_path().stat().st_mode & 0o777 == 0o600


def test_an_install_renamed_in_the_app_is_still_backed(tmp_path: Path) -> None:
    origin = {"registry": REGISTRY, "name": "io.github.acme/weather", "version": "1.0.0", "package": "pypi"}
    real = ServerConfig("weather", TransportKind.STDIO, command="/usr/bin/uvx", args=("acme-weather",), origin=origin)
    store = ConfigStore(tmp_path / "servers.json")
    store.upsert(installed(real))
    store.upsert(replace(real, name="forecast"), previous_name="weather")  # renamed in the server editor
    assert ISSUE.server_refusal(store.servers["forecast"]) is None
    assert ISSUE.server_refusal(real) is not None  # the old name no longer backs anything
