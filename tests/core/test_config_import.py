"""Importing servers from Claude Desktop, Cursor and VS Code files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config, save_config
from desktop_app.core.config_import import SecretNeeded, import_servers, known_sources, strip_jsonc
from desktop_app.core.server_config import OAuthSettings, ServerConfig, TransportKind

CLAUDE_DOC = {
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        "remote": {"url": "https://mcp.example.com/mcp", "type": "streamable-http"},
    },
}

VSCODE_JSONC = """{
  // Servers for this workspace
  "inputs": [
    {
      "type": "promptString",
      "id": "api-key",
      "description": "GitHub token", /* shown in the prompt */
      "password": true,
    },
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/", // a // inside a string stays
      "headers": {"Authorization": "Bearer ${input:api-key}"},
    },
    "local": {
      "type": "stdio",
      "command": "${workspaceFolder}/bin/server",
      "args": ["--home", "${env:HOME}"],
      "envFile": "${workspaceFolder}/.env",
    },
  },
}
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home directory for this test, with no XDG or APPDATA overrides."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("APPDATA", raising=False)
    return home


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- JSONC -----------------------------------------------------------------------------------


def test_strip_jsonc_removes_comments_and_trailing_commas_only() -> None:
    text = '{\n  "a": "http://x/*y*/", // note\n  /* block\n  comment */ "b": [1, 2,],\n  "c": "q\\"//",\n}'
    stripped = strip_jsonc(text)
    assert json.loads(stripped) == {"a": "http://x/*y*/", "b": [1, 2], "c": 'q"//'}
    assert stripped.count("\n") == text.count("\n")  # line numbers are kept


def test_strip_jsonc_trailing_comma_before_comment() -> None:
    assert json.loads(strip_jsonc('{"a": 1, // last\n}')) == {"a": 1}
    assert json.loads(strip_jsonc('["x,", "y"]')) == ["x,", "y"]


def test_strip_jsonc_leaves_plain_json_alone() -> None:
    text = json.dumps(CLAUDE_DOC, indent=2)
    assert strip_jsonc(text) == text


# --- sources ---------------------------------------------------------------------------------


def test_known_sources_on_linux(home: Path) -> None:
    claude = _write(home / ".config" / "Claude" / "claude_desktop_config.json", "{}")
    sources = known_sources(platform="linux", workspace=home / "proj")
    by_path = {s.path: s for s in sources}
    assert by_path[claude].exists and by_path[claude].client == "Claude Desktop"
    assert not by_path[home / ".cursor" / "mcp.json"].exists
    assert by_path[home / ".config" / "Code" / "User" / "mcp.json"].kind == "vscode"
    assert home / "proj" / ".vscode" / "mcp.json" in by_path


def test_known_sources_on_macos_and_windows(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    support = home / "Library" / "Application Support"
    mac = {s.kind: s.path for s in known_sources(platform="darwin") if s.kind in ("claude", "vscode")}
    assert mac == {
        "claude": support / "Claude" / "claude_desktop_config.json",
        "vscode": support / "Code" / "User" / "mcp.json",
    }
    monkeypatch.setenv("APPDATA", str(home / "Roaming"))
    win = [s.path for s in known_sources(platform="win32")]
    assert home / "Roaming" / "Claude" / "claude_desktop_config.json" in win
    assert home / "Roaming" / "Code" / "User" / "mcp.json" in win
    assert home / ".cursor" / "mcp.json" in win


# --- importing -------------------------------------------------------------------------------


def test_import_claude_desktop(home: Path) -> None:
    path = _write(home / ".config" / "Claude" / "claude_desktop_config.json", json.dumps(CLAUDE_DOC))
    report = import_servers({}, path)
    assert report.kind == "claude"
    assert report.added == ["filesystem", "remote"]
    assert report.servers["filesystem"].args == ("-y", "@modelcontextprotocol/server-filesystem", "/tmp")
    assert report.servers["remote"].transport is TransportKind.HTTP
    assert report.secrets_needed == []
    assert report.summary.startswith("From Claude Desktop: added 2 (filesystem, remote)")


def test_import_cursor_converts_env_variables(home: Path) -> None:
    doc = {"mcpServers": {"db": {"command": "db-mcp", "env": {"URL": "${env:DATABASE_URL}"}}}}
    path = _write(home / ".cursor" / "mcp.json", json.dumps(doc))
    report = import_servers({}, path)
    assert report.kind == "cursor"
    assert report.servers["db"].env == {"URL": "${DATABASE_URL}"}


def test_import_vscode_jsonc_with_inputs(tmp_path: Path) -> None:
    workspace = tmp_path / "proj"
    path = _write(workspace / ".vscode" / "mcp.json", VSCODE_JSONC)
    report = import_servers({}, path)
    assert report.kind == "vscode"
    github = report.servers["github"]
    assert github.headers == {"Authorization": "Bearer ${secret:api-key}"}
    assert github.url == "https://api.githubcopilot.com/mcp/"
    local = report.servers["local"]
    assert local.command == f"{workspace}/bin/server"
    assert local.args == ("--home", "${HOME}")
    assert report.secrets_needed == [SecretNeeded("api-key", "GitHub token")]
    assert "api-key (GitHub token)" in report.summary
    assert any("envFile" in w for w in report.warnings)


def test_import_vscode_settings_json_nested_servers(tmp_path: Path) -> None:
    doc = {"editor.fontSize": 13, "mcp": {"servers": {"x": {"type": "sse", "url": "http://h/sse"}}}}
    path = _write(tmp_path / "settings.json", json.dumps(doc))
    report = import_servers({}, path, "vscode")
    assert report.servers["x"].transport is TransportKind.SSE


def test_merge_never_clobbers_existing_names(tmp_path: Path) -> None:
    path = _write(tmp_path / "claude_desktop_config.json", json.dumps(CLAUDE_DOC))
    same = ServerConfig(
        name="filesystem",
        transport=TransportKind.STDIO,
        command="npx",
        args=("-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
    )
    mine = ServerConfig(name="remote", transport=TransportKind.HTTP, url="http://127.0.0.1:9/mcp")
    keep = ServerConfig(name="keep", transport=TransportKind.STDIO, command="keep")
    existing = {"filesystem": same, "remote": mine, "keep": keep}
    report = import_servers(existing, path, "claude")
    assert report.added == [] and report.unchanged == ["filesystem"] and report.skipped == ["remote"]
    assert report.servers == existing
    assert report.servers["remote"].url == "http://127.0.0.1:9/mcp"
    assert "skipped 1 whose name is already used (remote)" in report.summary
    assert "1 already present (filesystem)" in report.summary
    assert existing == {"filesystem": same, "remote": mine, "keep": keep}  # input not mutated


def test_import_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    text = '{\n  // c\n  "servers": {\n    "a": {"url": "http://x"}\n    "b": {"url": "http://y"}\n  }\n}'
    path = _write(tmp_path / ".vscode" / "mcp.json", text)
    with pytest.raises(ConfigError) as info:
        import_servers({}, path)
    assert info.value.file == str(path)
    assert info.value.line == 5


def test_import_schema_error_line_survives_comment_stripping(tmp_path: Path) -> None:
    bad = VSCODE_JSONC.replace('"args": ["--home", "${env:HOME}"]', '"args": "--home"')
    path = _write(tmp_path / "mcp.json", bad)
    with pytest.raises(ConfigError) as info:
        import_servers({}, path)
    assert info.value.line == 20
    assert str(info.value) == f"{path}, line 20: servers.local.args must be a list of strings"


def test_import_unrecognised_file_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "x.json", '{"something": {}}')
    with pytest.raises(ConfigError, match='no "mcpServers"'):
        import_servers({}, path)
    claude = _write(tmp_path / "c.json", json.dumps(CLAUDE_DOC))
    with pytest.raises(ConfigError, match="VS Code file"):
        import_servers({}, claude, "vscode")
    with pytest.raises(ConfigError, match="cannot read"):
        import_servers({}, tmp_path / "missing.json")


def test_empty_import_says_so(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.json", '{"mcpServers": {}}')
    report = import_servers({}, path)
    assert report.added == [] and report.summary.startswith("No servers found")


def test_imported_remote_sign_in_settings(tmp_path: Path) -> None:
    cursor = tmp_path / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "tracker": {
                        "url": "https://tracker.example/mcp",
                        "auth": {"CLIENT_ID": "desk", "CLIENT_SECRET": "${env:TRACKER_SECRET}", "scopes": ["read"]},
                    },
                    "wiki": {"url": "https://wiki.example/mcp"},
                }
            }
        )
    )
    report = import_servers({}, cursor)
    assert report.servers["tracker"].oauth == OAuthSettings(
        client_id="desk", client_secret="${TRACKER_SECRET}", scopes=("read",)
    )
    assert report.servers["wiki"].oauth is None  # signs in on its 401 like any remote server
    claude_code = tmp_path / "claude.json"
    claude_code.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "calendar": {
                        "type": "http",
                        "url": "https://calendar.example/mcp",
                        "oauth": {"clientId": "desk", "callbackPort": 8765, "clientSecret": "plain", "extra": 1},
                    }
                }
            }
        )
    )
    report = import_servers({}, claude_code)
    assert report.servers["calendar"].oauth == OAuthSettings(
        client_id="desk", client_secret="plain", callback_port=8765
    )
    assert "calendar: sign-in settings extra are not used by MCP Desk." in report.warnings
    assert any("client secret is written in the file" in w for w in report.warnings)


# --- an import is an install -----------------------------------------------------------------


def test_an_import_drops_the_keys_that_grant_trust_and_says_so(tmp_path: Path) -> None:
    origin = {"registry": "https://registry.modelcontextprotocol.io", "name": "io.github.acme/x", "version": "1"}
    doc = {
        "mcpServers": {
            "granted": {
                "command": "/opt/x/server",
                "trusted": True,
                "autoApproveReadOnly": True,
                "origin": origin,
                "roots": ["/"],
                "disabledTools": ["delete"],
            },
            "plain": {"url": "https://mcp.example.com/mcp", "trusted": False},
        }
    }
    path = _write(tmp_path / "claude_desktop_config.json", json.dumps(doc))
    report = import_servers({}, path)
    granted = report.servers["granted"]
    assert (granted.trusted, granted.auto_approve_read_only, granted.origin, granted.roots) == (False, False, {}, None)
    assert granted.disabled_tools == ("delete",)  # it only switches tools off: kept
    assert report.new["granted"].dropped == ("trusted", "autoApproveReadOnly", "origin", "roots")
    assert report.new["plain"].dropped == ()  # false grants nothing: not worth a word
    assert report.added == ["granted", "plain"] and report.refused == []
    assert report.summary == (
        "From Claude Desktop: added 2 (granted, plain). granted: dropped trusted, autoApproveReadOnly, origin, roots:"
        " set them in the server editor if you mean it."
    )


def test_an_entry_that_changes_what_runs_is_refused(tmp_path: Path) -> None:
    doc = {
        "mcpServers": {
            "hooks": {"command": "python3", "args": ["server.py"], "env": {"PYTHONPATH": "/repo/hooks", "LANG": "C"}},
            "ld": {"command": "/bin/server", "env": {"ld_preload": "/repo/x.so"}},
            "fine": {"command": "python3", "args": ["server.py"], "env": {"LANG": "C"}},
        }
    }
    path = _write(tmp_path / "claude_desktop_config.json", json.dumps(doc))
    report = import_servers({}, path, which=lambda name: f"/usr/bin/{name}")
    assert report.added == ["fine"] and report.refused == ["hooks", "ld"]
    assert set(report.servers) == {"fine"}
    assert report.new["hooks"].refusal == (
        "the imported entry sets PYTHONPATH, which changes which program runs or what it loads; imports may not"
        " set it. Add the server in the server editor if you mean it"
    )
    assert report.new["ld"].launch_names == ("ld_preload",)
    assert report.summary.startswith("From Claude Desktop: added 1 (fine); refused 2 (hooks, ld). hooks: the imported")


def test_a_bare_command_is_resolved_as_installs_resolve_it(tmp_path: Path) -> None:
    doc = {
        "mcpServers": {
            "found": {"command": "npx", "args": ["-y", "pkg"]},
            "missing": {"command": "nowhere-tool"},
            "relative": {"command": "./bin/server"},
            "variable": {"command": "${HOME}/bin/server"},
            "remote": {"url": "https://mcp.example.com/mcp"},
        }
    }
    path = _write(tmp_path / "claude_desktop_config.json", json.dumps(doc))
    report = import_servers({}, path, which=lambda name: "/usr/local/bin/npx" if name == "npx" else None)
    commands = {name: server.config.command for name, server in report.new.items()}
    assert commands == {
        "found": "/usr/local/bin/npx",
        "missing": "nowhere-tool",
        "relative": "./bin/server",
        "variable": "${HOME}/bin/server",
        "remote": None,
    }
    notes = {name: server.program_note for name, server in report.new.items()}
    assert notes == {
        "found": "",
        "missing": "not found on this computer's PATH",
        "relative": "a relative path: it runs from the server's working folder",
        "variable": "the command holds a variable, resolved when the server starts",
        "remote": "",
    }
    # The same server, spelt as a bare name in the file, is the one already present (trusted here or not).
    existing = {
        "found": ServerConfig(
            "found", TransportKind.STDIO, command="/usr/local/bin/npx", args=("-y", "pkg"), trusted=True
        )
    }
    again = import_servers(existing, path, which=lambda name: "/usr/local/bin/npx" if name == "npx" else None)
    assert again.unchanged == ["found"] and "found" not in again.new


def test_an_import_keeps_the_sandbox_keys_which_only_narrow_rights(tmp_path: Path, home: Path) -> None:
    sandbox = {
        "filesystem": {"allowWrite": ["${userHome}/notes"], "denyRead": ["${userHome}/.ssh"]},
        "network": {"allowedDomains": ["api.example.com", "*.cdn.example.com"], "deniedDomains": ["evil.example"]},
    }
    entry = {"type": "stdio", "command": "/opt/x/server", "sandboxEnabled": True, "sandbox": sandbox}
    path = _write(tmp_path / ".vscode" / "mcp.json", json.dumps({"servers": {"boxed": entry}}))
    report = import_servers({}, path)
    boxed = report.servers["boxed"]
    assert report.added == ["boxed"] and report.new["boxed"].dropped == ()
    assert boxed.sandbox_enabled and boxed.sandbox is not None
    assert boxed.sandbox.allow_write == (f"{home}/notes",) and boxed.sandbox.deny_read == (f"{home}/.ssh",)
    assert boxed.sandbox.allowed_domains == ("api.example.com", "*.cdn.example.com")
    assert boxed.sandbox.denied_domains == ("evil.example",)
    saved = tmp_path / "servers.json"
    save_config(saved, report.servers)
    assert load_config(saved).servers["boxed"] == boxed


# --- the files other clients now write -------------------------------------------------------


def test_a_claude_code_project_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    doc = {
        "mcpServers": {
            "notes": {
                "type": "stdio",
                "command": "/opt/notes/server",
                "args": ["--root", "${workspaceFolder}/notes"],
                "env": {"TOKEN": "${NOTES_TOKEN}", "KEY": "${secret:notes-key}"},
            },
            "remote": {"type": "streamable-http", "url": "https://mcp.example.com/mcp"},
            "events": {"type": "sse", "url": "https://mcp.example.com/sse"},
        }
    }
    path = _write(project / ".mcp.json", json.dumps(doc))
    report = import_servers({}, path)
    assert report.kind == "claude-code" and report.summary.startswith("From Claude Code: added 3")
    notes = report.servers["notes"]
    assert notes.args == ("--root", f"{project}/notes")  # the project's folder
    assert notes.env == {"TOKEN": "${NOTES_TOKEN}", "KEY": "${secret:notes-key}"}  # kept as placeholders
    assert report.secrets_needed == [SecretNeeded("notes-key")]
    assert report.warnings == []
    assert report.servers["remote"].transport is TransportKind.HTTP
    assert report.servers["events"].transport is TransportKind.SSE


def test_a_vscode_project_file_at_the_root(tmp_path: Path) -> None:
    doc = {
        "inputs": [{"type": "promptString", "id": "gh token", "description": "GitHub", "password": True}],
        "servers": {
            "github": {"type": "http", "url": "https://api.example.com/mcp/", "headers": {"X": "${input:gh token}"}},
            "local": {"type": "stdio", "command": "${workspaceFolder}/bin/s", "env": {"HOME_DIR": "${env:HOME}"}},
        },
    }
    path = _write(tmp_path / "proj" / ".mcp.json", json.dumps(doc))
    report = import_servers({}, path)
    assert report.kind == "vscode"
    assert report.servers["github"].headers == {"X": "${secret:gh_token}"}
    assert report.secrets_needed == [SecretNeeded("gh_token", "GitHub")]
    assert report.servers["local"].command == f"{tmp_path / 'proj'}/bin/s"
    assert report.servers["local"].env == {"HOME_DIR": "${HOME}"}


def test_a_copilot_file(home: Path) -> None:
    doc = {
        "mcpServers": {
            "all": {"type": "local", "command": "/opt/a/server", "args": [], "tools": ["*"]},
            "some": {"type": "local", "command": "/opt/b/server", "env": {"K": "${env:B_KEY}"}, "tools": ["read"]},
            "web": {"type": "http", "url": "https://mcp.example.com/mcp", "tools": ["*"]},
        }
    }
    path = _write(home / ".copilot" / "mcp-config.json", json.dumps(doc))
    report = import_servers({}, path)
    assert report.kind == "copilot" and report.added == ["all", "some", "web"]
    assert report.servers["all"].transport is TransportKind.STDIO
    assert report.servers["some"].env == {"K": "${B_KEY}"}
    assert report.warnings == [
        "some: its list of allowed tools is not imported; switch tools off in its Tools list instead."
    ]
    saved = home / "servers.json"
    save_config(saved, report.servers)
    assert "tools" not in json.loads(saved.read_text())["mcpServers"]["all"]


def test_the_new_places_are_known(home: Path) -> None:
    copilot = _write(home / ".copilot" / "mcp-config.json", "{}")
    sources = {s.path: s for s in known_sources(platform="linux", workspace=home / "proj")}
    assert sources[copilot].exists and sources[copilot].client == "GitHub Copilot"
    assert sources[home / ".claude.json"].client == "Claude Code" and not sources[home / ".claude.json"].exists
    assert sources[home / "proj" / ".mcp.json"].kind == "claude-code"


def test_an_entry_that_names_the_apps_own_secrets_is_refused(tmp_path: Path) -> None:
    doc = {
        "servers": {
            "model": {"type": "http", "url": "https://x.example/mcp", "headers": {"K": "${input:LLM_API_KEY_OPENAI}"}},
            "tokens": {"type": "stdio", "command": "/opt/t", "env": {"T": "${secret:oauth.github}"}},
            "fine": {"type": "stdio", "command": "/opt/f", "env": {"T": "${input:fine-token}"}},
        }
    }
    path = _write(tmp_path / ".mcp.json", json.dumps(doc))
    report = import_servers({}, path)
    assert report.added == ["fine"] and report.refused == ["model", "tokens"]
    assert report.new["tokens"].refusal == (
        "the imported entry asks for oauth.github, where MCP Desk keeps your model key or sign-in tokens;"
        " imports may not"
    )
    assert report.secrets_needed == [SecretNeeded("fine-token")]
