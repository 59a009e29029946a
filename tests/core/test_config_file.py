"""servers.json: parsing with file/line/field errors, safe atomic saving, and paste support."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config, parse_config, parse_pasted, save_config
from desktop_app.core.paths import default_config_path
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind
from desktop_app.core.server_entry import server_from_dict, server_to_dict

GITHUB = ServerConfig(
    name="github",
    transport=TransportKind.STDIO,
    command="npx",
    args=("-y", "@modelcontextprotocol/server-github"),
    env={"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"},
    cwd="/tmp",
    protocol="legacy",
    timeout=12.5,
    trusted=True,
    auto_approve_read_only=True,
)
REMOTE = ServerConfig(
    name="remote",
    transport=TransportKind.SSE,
    url="https://example.com/sse",
    headers={"Authorization": "Bearer ${secret:REMOTE}"},
    disabled=True,
)
PLAIN = ServerConfig(name="plain", transport=TransportKind.HTTP, url="http://127.0.0.1:3001/mcp")
INSTALLED = ServerConfig(
    name="installed",
    transport=TransportKind.STDIO,
    command="npx",
    origin={"registry": "https://registry.example", "name": "io.github.acme/weather", "version": "1.0.0"},
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_default_config_path_is_per_user_app_dir() -> None:
    path = default_config_path()
    assert path.name == "servers.json"
    assert path.parent.name == "mcp-desk"


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    servers = {s.name: s for s in (GITHUB, REMOTE, PLAIN, INSTALLED)}
    save_config(path, servers)
    loaded = load_config(path)
    assert loaded.error is None
    assert loaded.servers == servers
    assert list(loaded.servers) == ["github", "remote", "plain", "installed"]
    assert json.loads(path.read_text())["mcpServers"]["installed"]["origin"]["version"] == "1.0.0"


def test_saved_file_is_claude_shape_without_defaults(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    save_config(path, {"plain": PLAIN, "github": GITHUB})
    doc = json.loads(path.read_text())
    assert doc["mcpServers"]["plain"] == {"type": "http", "url": "http://127.0.0.1:3001/mcp"}
    github = doc["mcpServers"]["github"]
    assert "type" not in github and "disabled" not in github
    assert github["timeout"] == 12.5 and github["protocol"] == "legacy"
    assert github["trusted"] is True and github["autoApproveReadOnly"] is True
    assert "trusted" not in doc["mcpServers"]["plain"]  # untrusted is the default and is not written
    assert server_to_dict(ServerConfig(name="x", transport=TransportKind.STDIO, command="run")) == {"command": "run"}


@pytest.mark.parametrize("spelling", ["http", "streamable-http", "streamableHttp", None])
def test_http_type_spellings(spelling: str | None) -> None:
    entry: dict[str, object] = {"url": "https://x.test/mcp"}
    if spelling is not None:
        entry["type"] = spelling
    cfg = server_from_dict("x", entry, "servers.json")
    assert cfg.transport is TransportKind.HTTP
    assert cfg.timeout == 30.0 and cfg.protocol == "auto" and not cfg.disabled


def test_missing_file_is_empty_without_error(tmp_path: Path) -> None:
    loaded = load_config(tmp_path / "servers.json")
    assert loaded.servers == {} and loaded.error is None


def test_empty_file_is_empty_config(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text("\n  \n")
    loaded = load_config(path)
    assert loaded.servers == {} and loaded.error is None


def test_broken_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    text = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {"command": "y"}\n  }\n}\n'
    path.write_text(text)
    loaded = load_config(path)
    assert loaded.servers == {}
    assert loaded.error is not None
    assert loaded.error.line == 4
    assert str(loaded.error).startswith("servers.json, line 4: invalid JSON")
    assert path.read_text() == text  # never modified


SCHEMA_DOC = """{
  "mcpServers": {
    "ok": {"command": "node"},
    "github": {
      "command": "npx",
      "env": {"A": "b"},
      "args": "-y server-github"
    }
  }
}
"""


def test_schema_error_names_line_and_field() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(SCHEMA_DOC, "servers.json")
    err = info.value
    assert str(err) == "servers.json, line 7: mcpServers.github.args must be a list of strings"
    assert (err.file, err.line, err.field) == ("servers.json", 7, "mcpServers.github.args")


@pytest.mark.parametrize(
    ("entry_lines", "line", "field", "words"),
    [
        (['"s": {', '"cwd": "/x"', "}"], 3, "mcpServers.s", "needs either"),
        (['"s": {', '"command": "x",', '"protocol": "2025"', "}"], 5, "mcpServers.s.protocol", "one of"),
        (['"s": {', '"command": "x",', '"timeout": 0', "}"], 5, "mcpServers.s.timeout", "greater than 0"),
        (['"s": {', '"command": "x",', '"timeout": "30"', "}"], 5, "mcpServers.s.timeout", "number"),
        (['"s": {', '"command": "x",', '"timeout": true', "}"], 5, "mcpServers.s.timeout", "number"),
        (['"s": {', '"command": "x",', '"env": {"K": 1}', "}"], 5, "mcpServers.s.env.K", "string"),
        (['"s": {', '"command": "x",', '"args": ["a",', "2]", "}"], 6, "mcpServers.s.args[1]", "string"),
        (['"s": {', '"url": "https://x",', '"type": "ws"', "}"], 5, "mcpServers.s.type", '"sse"'),
        (['"s": {', '"command": "x",', '"url": "https://x"', "}"], 5, "mcpServers.s.url", "combined"),
        (['"s": {', '"url": "https://x",', '"args": ["a"]', "}"], 5, "mcpServers.s.args", "http server"),
        (['"s": {', '"command": "",', '"args": []', "}"], 4, "mcpServers.s.command", "non-empty"),
        (
            ['"s": {', '"command": "x",', '"disabled": "yes"', "}"],
            5,
            "mcpServers.s.disabled",
            "true or false",
        ),
        (['"s": {', '"command": "x",', '"trusted": 1', "}"], 5, "mcpServers.s.trusted", "true or false"),
        (['"s": ["x"]'], 3, "mcpServers.s", "must be an object"),
        (['"s": {', '"command": "x",', '"origin": {"version": 2}', "}"], 5, "mcpServers.s.origin.version", "string"),
    ],
)
def test_schema_errors(entry_lines: list[str], line: int, field: str, words: str) -> None:
    text = '{\n"mcpServers": {\n' + "\n".join(entry_lines) + "\n}\n}\n"
    with pytest.raises(ConfigError) as info:
        parse_config(text, "servers.json")
    assert info.value.line == line, text
    assert info.value.field == field
    assert words in str(info.value)


def test_mcp_servers_must_be_an_object() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config('{\n  "other": 1,\n  "mcpServers": []\n}', "servers.json")
    assert info.value.line == 3 and info.value.field == "mcpServers"


def test_malformed_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(SCHEMA_DOC)
    assert load_config(path).error is not None
    with pytest.raises(ConfigError, match="line 7"):
        save_config(path, {"plain": PLAIN})
    assert path.read_text() == SCHEMA_DOC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["servers.json"]


def test_second_save_keeps_backup_of_previous_file(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    save_config(path, {"plain": PLAIN})
    first = path.read_text()
    save_config(path, {"plain": PLAIN, "github": GITHUB})
    backup = tmp_path / "servers.json.bak"
    assert backup.read_text() == first
    assert set(load_config(path).servers) == {"plain", "github"}
    assert _mode(backup) == 0o600


def test_atomic_write_leaves_no_temp_files_and_is_private(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "servers.json"
    for _ in range(3):
        save_config(path, {"github": GITHUB})
    assert sorted(p.name for p in path.parent.iterdir()) == ["servers.json", "servers.json.bak"]
    assert _mode(path) == 0o600


def test_save_tightens_permissions_of_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {}}')
    os.chmod(path, 0o644)
    save_config(path, {"plain": PLAIN})
    assert _mode(path) == 0o600


def test_unknown_keys_survive_a_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(
        json.dumps(
            {
                "theme": "dark",
                "mcpServers": {"plain": {"url": "http://127.0.0.1:3001/mcp", "x-note": "mine"}},
                "zzz": [1, 2],
            }
        )
    )
    loaded = load_config(path)
    assert loaded.raw is not None
    renamed = {"plain": PLAIN, "github": GITHUB}
    save_config(path, renamed, raw=loaded.raw)
    doc = json.loads(path.read_text())
    assert list(doc) == ["theme", "mcpServers", "zzz"]
    assert doc["mcpServers"]["plain"]["x-note"] == "mine"
    # Without `raw`, the keys come from the file on disk.
    save_config(path, {"plain": PLAIN})
    doc = json.loads(path.read_text())
    assert doc["theme"] == "dark" and doc["mcpServers"]["plain"]["x-note"] == "mine"


def test_parse_pasted_accepts_document_or_bare_mapping() -> None:
    whole = parse_pasted(json.dumps({"mcpServers": {"github": server_to_dict(GITHUB)}}))
    bare = parse_pasted(json.dumps({"github": server_to_dict(GITHUB)}))
    assert whole == bare == {"github": GITHUB}


def test_parse_pasted_errors_point_into_the_paste() -> None:
    with pytest.raises(ConfigError) as info:
        parse_pasted('{\n  "a": {\n    "command": 5\n  }\n}')
    assert str(info.value) == "pasted text, line 3: a.command must be a non-empty string"
    with pytest.raises(ConfigError, match="without a name"):
        parse_pasted('{"command": "npx"}')
    with pytest.raises(ConfigError, match="line 1"):
        parse_pasted("[1, 2]")


# -- the "oauth" entry of remote servers -----------------------------------------------------

SIGNED = ServerConfig(
    name="tracker",
    transport=TransportKind.HTTP,
    url="https://tracker.example/mcp",
    oauth=OAuthSettings(
        client_id="desk",
        client_secret="${secret:TRACKER_SECRET}",
        scopes=("issues:read", "issues:write"),
        issuer="https://auth.tracker.example",
        client_metadata_url="https://desk.example/client.json",
        callback_port=8765,
    ),
)
ROBOT = ServerConfig(
    name="robot",
    transport=TransportKind.HTTP,
    url="https://api.example/mcp",
    oauth=OAuthSettings(
        grant="client_credentials",
        client_id="robot",
        private_key="${secret:ROBOT_KEY}",
        token_endpoint_auth_method="private_key_jwt",
        signing_algorithm="ES256",
    ),
)
NO_SIGN_IN = ServerConfig(
    name="static", transport=TransportKind.HTTP, url="https://static.example/mcp", oauth=OAuthSettings(enabled=False)
)


def test_oauth_round_trip_in_the_documented_spelling(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    servers = {s.name: s for s in (SIGNED, ROBOT, NO_SIGN_IN)}
    save_config(path, servers)
    assert load_config(path).servers == servers
    written = json.loads(path.read_text())["mcpServers"]
    assert written["tracker"]["oauth"] == {
        "clientId": "desk",
        "clientSecret": "${secret:TRACKER_SECRET}",
        "scopes": ["issues:read", "issues:write"],
        "issuer": "https://auth.tracker.example",
        "clientMetadataUrl": "https://desk.example/client.json",
        "callbackPort": 8765,
    }
    assert written["static"]["oauth"] is False
    assert server_to_dict(PLAIN) == {"type": "http", "url": "http://127.0.0.1:3001/mcp"}  # no oauth: none written


@pytest.mark.parametrize(
    ("oauth", "field", "words"),
    [
        ('"yes"', "oauth", "must be an object"),
        ('{"client_id": "x"}', "oauth.client_id", "is not an oauth setting"),
        ('{"clientId": ""}', "oauth.clientId", "non-empty"),
        ('{"scopes": "a b"}', "oauth.scopes", "list of strings"),
        ('{"scopes": ["a b"]}', "oauth.scopes[0]", "without spaces"),
        ('{"grant": "password"}', "oauth.grant", '"client_credentials"'),
        ('{"clientSecret": "s"}', "oauth.clientSecret", 'needs "clientId"'),
        ('{"grant": "client_credentials"}', "oauth.grant", 'needs "clientId"'),
        ('{"grant": "client_credentials", "clientId": "r"}', "oauth.grant", '"clientSecret" or "privateKey"'),
        ('{"clientId": "r", "clientSecret": "s", "privateKey": "k"}', "oauth.privateKey", "give one of them"),
        ('{"tokenEndpointAuthMethod": "client_secret_jwt"}', "oauth.tokenEndpointAuthMethod", "one of"),
        (
            '{"clientId": "r", "tokenEndpointAuthMethod": "client_secret_post"}',
            "oauth.tokenEndpointAuthMethod",
            "needs",
        ),
        ('{"clientMetadataUrl": "http://desk.example/c.json"}', "oauth.clientMetadataUrl", "https:// URL with a path"),
        ('{"clientMetadataUrl": "https://desk.example/"}', "oauth.clientMetadataUrl", "with a path"),
        ('{"issuer": "auth.example"}', "oauth.issuer", "http:// or https://"),
        ('{"callbackPort": 70000}', "oauth.callbackPort", "1 to 65535"),
        ('{"signingAlgorithm": "HS256"}', "oauth.signingAlgorithm", "one of"),
        ('{"grant": "enterprise", "clientId": "desk"}', "oauth.grant", '"clientId" and "clientSecret"'),
        (
            '{"grant": "enterprise", "clientId": "d", "clientSecret": "s", "tokenEndpointAuthMethod": "none"}',
            "oauth.tokenEndpointAuthMethod",
            '"client_secret_basic" or "client_secret_post"',
        ),
    ],
)
def test_oauth_errors_name_line_and_field(oauth: str, field: str, words: str) -> None:
    text = '{\n"mcpServers": {\n"s": {\n"url": "https://x/mcp",\n"oauth": ' + oauth + "\n}\n}\n}\n"
    with pytest.raises(ConfigError) as info:
        parse_config(text, "servers.json")
    assert info.value.field == f"mcpServers.s.{field}"
    assert info.value.line == 5
    assert words in str(info.value)


@pytest.mark.parametrize("oauth", ['{"privateKey": "${secret:K}"}', '{"clientId": "r", "privateKey": "${secret:K}"}'])
def test_a_browser_sign_in_may_authenticate_with_a_private_key(oauth: str) -> None:
    """Its metadata document or its pre-registered client may use `private_key_jwt` (`core/auth/client_auth.py`)."""
    text = '{"mcpServers": {"s": {"url": "https://x/mcp", "oauth": ' + oauth + "}}}"
    server = parse_config(text, "servers.json")["s"]
    assert server.oauth is not None and server.oauth.private_key == "${secret:K}"
    assert server.oauth.grant is None or not server.oauth.machine_to_machine


def test_oauth_does_not_apply_to_a_stdio_server() -> None:
    with pytest.raises(ConfigError, match="does not apply to a stdio server") as info:
        parse_config('{"mcpServers": {"s": {"command": "x", "oauth": {"clientId": "c"}}}}', "servers.json")
    assert info.value.field == "mcpServers.s.oauth"


def test_an_enterprise_sign_in_entry_reads_and_writes_back() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "s": {
                    "url": "https://x/mcp",
                    "oauth": {"grant": "enterprise", "clientId": "d", "clientSecret": "${secret:S}"},
                }
            }
        }
    )
    [config] = parse_config(text, "servers.json").values()
    assert config.oauth is not None and config.oauth.grant == "enterprise"
    assert server_to_dict(config)["oauth"] == {"grant": "enterprise", "clientId": "d", "clientSecret": "${secret:S}"}
