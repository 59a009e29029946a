"""Placeholder expansion at connect time, its errors (names, never values) and redaction."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config, save_config
from desktop_app.core.expansion import (
    ExpansionError,
    MissingSecretError,
    UnsetVariableError,
    missing_secrets,
    placeholders,
    redact,
    resolve_server,
    secret_placeholder,
)
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.secret_store import open_secret_store
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind

TOKEN = "ghp_s3cr3t-value-123"


class DictSecrets:
    """A SecretLookup over a dict, standing in for SecretStore where the backend does not matter."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def get(self, name: str) -> str | None:
        return self.values.get(name)


STDIO = ServerConfig(
    name="github",
    transport=TransportKind.STDIO,
    command="${TOOLS}/server",
    args=("--token=${secret:GITHUB_TOKEN}", "--home", "${HOME}", "cost: $${price}"),
    env={"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}", "PLAIN": "x"},
    cwd="${HOME}/work",
)
REMOTE = ServerConfig(
    name="remote",
    transport=TransportKind.HTTP,
    url="https://${HOST}/mcp",
    headers={"Authorization": "Bearer ${secret:API_KEY}", "X-Trace": "${secret:TRACE.id}"},
)
ENVIRON = {"HOME": "/home/ada", "TOOLS": "/opt/tools", "HOST": "api.example.com"}


def test_resolves_env_and_secrets_in_every_field() -> None:
    resolved = resolve_server(STDIO, DictSecrets({"GITHUB_TOKEN": TOKEN}), ENVIRON)
    cfg = resolved.config
    assert cfg.command == "/opt/tools/server"
    assert cfg.args == (f"--token={TOKEN}", "--home", "/home/ada", "cost: ${price}")
    assert cfg.env == {"GITHUB_TOKEN": TOKEN, "PLAIN": "x"}
    assert cfg.cwd == "/home/ada/work"
    assert resolved.secret_values == frozenset({TOKEN})
    assert STDIO.env["GITHUB_TOKEN"] == "${secret:GITHUB_TOKEN}"  # the stored config is untouched


def test_sandbox_paths_are_resolved_as_the_issue_writes_them() -> None:
    sandboxed = replace(
        STDIO,
        sandbox_enabled=True,
        sandbox=SandboxSettings(allow_write=("${HOME}/notes",), deny_read=("${HOME}/private", "/srv/x")),
    )
    resolved = resolve_server(sandboxed, DictSecrets({"GITHUB_TOKEN": TOKEN}), ENVIRON).config
    assert resolved.sandbox == SandboxSettings(
        allow_write=("/home/ada/notes",), deny_read=("/home/ada/private", "/srv/x")
    )
    assert sandboxed.sandbox is not None and sandboxed.sandbox.allow_write == (
        "${HOME}/notes",
    )  # the entry is untouched


def test_resolves_url_and_headers() -> None:
    secrets = DictSecrets({"API_KEY": "key-abcdef", "TRACE.id": "trace-1"})
    resolved = resolve_server(REMOTE, secrets, ENVIRON)
    assert resolved.config.url == "https://api.example.com/mcp"
    assert resolved.config.headers == {"Authorization": "Bearer key-abcdef", "X-Trace": "trace-1"}
    assert resolved.secret_values == {"key-abcdef", "trace-1"}


def test_missing_secret_names_server_field_and_secret_but_no_value() -> None:
    secrets = DictSecrets({"OTHER": TOKEN})
    with pytest.raises(MissingSecretError) as info:
        resolve_server(STDIO, secrets, ENVIRON)
    err = info.value
    assert isinstance(err, ConfigError)
    assert "GITHUB_TOKEN" in str(err) and "'github'" in str(err) and "args[0]" in str(err)
    assert (err.server, err.name, err.field) == ("github", "GITHUB_TOKEN", "mcpServers.github.args[0]")
    assert TOKEN not in str(err)


def test_environment_defaults_to_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOST", "from-process.test")
    assert resolve_server(REMOTE, DictSecrets({"API_KEY": "k", "TRACE.id": "t"})).config.url == (
        "https://from-process.test/mcp"
    )


def test_unset_variable_is_named() -> None:
    with pytest.raises(UnsetVariableError) as info:
        resolve_server(REMOTE, DictSecrets({}), {})
    assert "HOST" in str(info.value) and "url" in str(info.value)


@pytest.mark.parametrize(("text", "words"), [("${not valid}", "invalid placeholder"), ("a ${B", "closing")])
def test_malformed_placeholders_are_errors(text: str, words: str) -> None:
    cfg = ServerConfig(name="s", transport=TransportKind.STDIO, command="x", args=(text,))
    with pytest.raises(ExpansionError, match=words):
        resolve_server(cfg, DictSecrets({}), {"B": "b"})


def test_placeholders_lists_secret_names_only() -> None:
    assert placeholders(STDIO) == {"GITHUB_TOKEN"}
    assert placeholders(REMOTE) == {"API_KEY", "TRACE.id"}
    escaped = ServerConfig(name="e", transport=TransportKind.STDIO, command="x", args=("$${secret:NO}", "${secret:}"))
    assert placeholders(escaped) == set()
    assert missing_secrets(REMOTE, DictSecrets({"API_KEY": "k"})) == ["TRACE.id"]


def test_secret_placeholder_validates_names() -> None:
    assert secret_placeholder("api-key") == "${secret:api-key}"
    with pytest.raises(ValueError, match="invalid secret name"):
        secret_placeholder("has space")


def test_redact_hides_secrets_but_not_short_strings() -> None:
    text = f"auth failed for {TOKEN}; prefix ghp_s3cr3t; id=ab"
    out = redact(text, {TOKEN, "ghp_s3cr3t", "ab"})
    assert TOKEN not in out and "ghp_s3cr3t" not in out
    assert out == "auth failed for ***; prefix ***; id=ab"
    assert redact("nothing here", []) == "nothing here"


def test_secret_values_never_land_in_servers_json(tmp_path: Path) -> None:
    store = open_secret_store(tmp_path / "data", prefer="plaintext-file")
    store.set("X", TOKEN)
    cfg = ServerConfig(
        name="remote",
        transport=TransportKind.HTTP,
        url="https://api.example.com/mcp",
        headers={"Authorization": "Bearer ${secret:X}"},
    )
    resolved = resolve_server(cfg, store, {})
    assert resolved.config.headers["Authorization"] == f"Bearer {TOKEN}"
    path = tmp_path / "servers.json"
    save_config(path, {"remote": cfg})
    text = path.read_text()
    assert TOKEN not in text
    assert "${secret:X}" in text
    assert load_config(path).servers["remote"] == cfg


def test_oauth_client_secret_and_key_are_placeholders_too() -> None:
    cfg = ServerConfig(
        name="tracker",
        transport=TransportKind.HTTP,
        url="https://tracker.example/mcp",
        oauth=OAuthSettings(client_id="${TRACKER_CLIENT}", client_secret="${secret:TRACKER_SECRET}"),
    )
    assert placeholders(cfg) == {"TRACKER_SECRET"}
    resolved = resolve_server(cfg, DictSecrets({"TRACKER_SECRET": TOKEN}), {"TRACKER_CLIENT": "desk"})
    assert resolved.config.oauth == OAuthSettings(client_id="desk", client_secret=TOKEN)
    assert resolved.secret_values == {TOKEN}
    with pytest.raises(MissingSecretError, match=r"oauth\.clientSecret uses secret 'TRACKER_SECRET'"):
        resolve_server(cfg, DictSecrets({}), {"TRACKER_CLIENT": "desk"})
