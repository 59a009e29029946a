"""The `sandboxEnabled` and `sandbox` keys: read strictly, named when wrong, kept through every rewrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.core.config_file import load_config, save_config
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.server_config import ServerConfig

ENTRY = {
    "command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/notes"],
    "sandboxEnabled": True,
    "sandbox": {
        "filesystem": {"allowWrite": ["${HOME}/notes"], "denyRead": ["${HOME}/private"], "denyWrite": ["/srv/x"]},
        "network": {"allowedDomains": ["api.github.com", "*.npmjs.org"]},
    },
}


def _load(tmp_path: Path, entry: object) -> tuple[dict[str, ServerConfig], str | None]:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"files": entry}}, indent=2))
    load = load_config(path)
    return load.servers, None if load.error is None else str(load.error)


def test_vs_code_keys_are_read(tmp_path: Path) -> None:
    servers, error = _load(tmp_path, ENTRY)
    assert error is None
    config = servers["files"]
    assert config.sandbox_enabled
    assert config.sandbox == SandboxSettings(
        allow_write=("${HOME}/notes",),
        deny_read=("${HOME}/private",),
        deny_write=("/srv/x",),
        allowed_domains=("api.github.com", "*.npmjs.org"),
    )


def test_keys_survive_a_rewrite_of_the_file(tmp_path: Path) -> None:
    servers, _ = _load(tmp_path, ENTRY)
    path = tmp_path / "servers.json"
    save_config(path, servers)
    assert json.loads(path.read_text())["mcpServers"]["files"] == ENTRY
    assert load_config(path).servers == servers


def test_a_switched_off_sandbox_keeps_its_rules(tmp_path: Path) -> None:
    entry = {**ENTRY, "sandboxEnabled": False}
    servers, _ = _load(tmp_path, entry)
    assert not servers["files"].sandbox_enabled and servers["files"].sandbox is not None
    save_config(tmp_path / "servers.json", servers)
    assert "sandboxEnabled" not in json.loads((tmp_path / "servers.json").read_text())["mcpServers"]["files"]


@pytest.mark.parametrize(
    ("sandbox", "field", "problem"),
    [
        (
            {"filesystem": {"allowWrite": [], "readOnly": []}},
            "sandbox.filesystem.readOnly",
            "is not a sandbox filesystem",
        ),
        ({"files": {}}, "sandbox.files", "is not a sandbox setting"),
        ({"filesystem": {"allowWrite": "/home/me/notes"}}, "sandbox.filesystem.allowWrite", "must be a list"),
        ({"filesystem": {"denyRead": ["notes/private"]}}, "sandbox.filesystem.denyRead[0]", "must be an absolute path"),
        ({"network": {"allowedDomains": ["https://api.github.com"]}}, "allowedDomains[0]", "without a scheme"),
        ({"network": {"allowedDomains": ["api.github.com/v3"]}}, "allowedDomains[0]", "without a path"),
        ({"network": {"allowedDomains": ["api.*.com"]}}, "allowedDomains[0]", "must be a domain name"),
        ({"network": []}, "sandbox.network", "must be an object"),
        ([], "sandbox", "must be an object"),
    ],
)
def test_a_malformed_sandbox_names_the_server_and_field_and_nothing_starts(
    tmp_path: Path, sandbox: object, field: str, problem: str
) -> None:
    servers, error = _load(tmp_path, {**ENTRY, "sandbox": sandbox})
    assert servers == {}  # the file is not loaded: the server cannot start unsandboxed by accident
    assert error is not None
    assert f"mcpServers.files.{field}" in error or field in error
    assert "mcpServers.files." in error and problem in error and "line " in error


def test_sandbox_enabled_must_be_a_boolean(tmp_path: Path) -> None:
    _, error = _load(tmp_path, {**ENTRY, "sandboxEnabled": "yes"})
    assert error is not None and "mcpServers.files.sandboxEnabled must be true or false" in error


def test_a_remote_server_cannot_ask_for_a_sandbox(tmp_path: Path) -> None:
    _, error = _load(tmp_path, {"url": "https://mcp.example.com/mcp", "sandboxEnabled": True})
    assert error is not None and "mcpServers.files.sandboxEnabled does not apply to a http server" in error
