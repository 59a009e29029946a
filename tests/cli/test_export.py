"""`mcp-desk export`: the user's servers for another client, secrets as placeholders and never their values;
importing the file into an empty configuration gives the same servers back."""

from __future__ import annotations

import json
import stat
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.__main__ import main
from desktop_app.core.config_file import load_config
from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import open_secret_store

TOKEN = "tok-planted-0123456789"
KEY = "key-planted-9876543210"
SANDBOX = {"filesystem": {"allowWrite": ["/tmp/notes"]}, "network": {"allowedDomains": ["api.example.com"]}}


def user_config(home: Path) -> Path:
    """A servers.json with secrets, an environment variable, trust the user gave, tools off and a sandbox."""
    config = home / "servers.json"
    servers = {
        "notes": {
            "command": sys.executable,
            "args": ["-m", "notes", "--key", "${secret:NOTES_KEY}"],
            "env": {"NOTES_HOME": "${NOTES_HOME}", "LANG": "C"},
            "trusted": True,
            "disabledTools": ["delete"],
            "sandboxEnabled": True,
            "sandbox": SANDBOX,
        },
        "tracker": {
            "type": "http",
            "url": "https://tracker.example/mcp",
            "headers": {"Authorization": "Bearer ${secret:TRACKER_TOKEN}"},
            "autoApproveReadOnly": True,
            "timeout": 20,
        },
        "events": {"type": "sse", "url": "https://events.example/sse", "disabled": True},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    return config


@pytest.mark.parametrize(("where", "shape"), [(".vscode/mcp.json", "vscode"), (".mcp.json", "claude")])
def test_export_then_import_gives_the_same_servers_and_no_secret(
    home: Path, capsys: pytest.CaptureFixture[str], where: str, shape: str
) -> None:
    store = open_secret_store(data_dir())
    store.set("NOTES_KEY", KEY)
    store.set("TRACKER_TOKEN", TOKEN)
    assert store.get("NOTES_KEY") == KEY  # planted where the servers' placeholders point
    config = user_config(home)
    exported = home / "project" / where
    exported.parent.mkdir(parents=True)

    assert main(["export", str(exported), "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert f"Exported 3 servers to {exported}" in out
    assert "Secrets left as placeholders, to set in the other client: NOTES_KEY, TRACKER_TOKEN\n" in out
    assert "Not exported (this app's own decisions): trusted, autoApproveReadOnly\n" in out
    text = exported.read_text()
    assert TOKEN not in text and KEY not in text
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    document = json.loads(text)
    if shape == "vscode":
        assert document["inputs"] == [
            {"type": "promptString", "id": "NOTES_KEY", "description": "NOTES_KEY (a secret)", "password": True},
            {
                "type": "promptString",
                "id": "TRACKER_TOKEN",
                "description": "TRACKER_TOKEN (a secret)",
                "password": True,
            },
        ]
        entries = document["servers"]
        assert entries["tracker"]["headers"] == {"Authorization": "Bearer ${input:TRACKER_TOKEN}"}
        assert entries["notes"]["env"]["NOTES_HOME"] == "${env:NOTES_HOME}"
    else:
        entries = document["mcpServers"]
        assert entries["tracker"]["headers"] == {"Authorization": "Bearer ${secret:TRACKER_TOKEN}"}
    assert entries["notes"]["type"] == "stdio"
    assert entries["notes"]["disabledTools"] == ["delete"] and entries["notes"]["sandbox"] == SANDBOX
    assert all(key not in entry for entry in entries.values() for key in ("trusted", "autoApproveReadOnly", "origin"))

    # Into an empty configuration, through the real command: the same servers, the trust the user gave aside.
    empty = home / "empty" / "servers.json"
    assert main(["import", str(exported), "--config", str(empty), "--yes"]) == 0
    assert capsys.readouterr().out.endswith(f"Added 3 servers to {empty}.\n")
    imported = load_config(empty).servers
    original = load_config(config).servers
    assert imported == {
        name: replace(server, trusted=False, auto_approve_read_only=False) for name, server in original.items()
    }
    assert TOKEN not in empty.read_text() and KEY not in empty.read_text()


def test_an_existing_file_is_replaced_only_when_asked(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = user_config(home)
    exported = home / ".mcp.json"
    exported.write_text('{"mcpServers": {"theirs": {"command": "/bin/true"}}}')
    assert main(["export", str(exported), "--config", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"mcp-desk export: {exported} exists: nothing was written (--force replaces it)\n"
    )
    assert "theirs" in exported.read_text()
    assert main(["export", str(exported), "--config", str(config), "--force", "--format", "vscode"]) == 0
    assert set(json.loads(exported.read_text())["servers"]) == {"notes", "tracker", "events"}


def test_a_broken_configuration_is_not_exported(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = home / "servers.json"
    config.write_text('{"mcpServers": {"x": {"command": 3}}}')
    exported = home / ".mcp.json"
    assert main(["export", str(exported), "--config", str(config)]) == 2
    assert capsys.readouterr().err.startswith("mcp-desk export: fix servers.json first: ")
    assert not exported.exists()


def test_a_credential_typed_into_the_configuration_is_exported_as_a_placeholder(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = "ghp_" + "a1b2c3d4" * 5
    config = home / "servers.json"
    servers = {
        "gh": {"command": "/opt/gh/server", "args": ["--token", typed], "env": {"GITHUB_TOKEN": typed, "LANG": "C"}},
        "api": {"type": "http", "url": "https://api.example/mcp", "headers": {"X-Api-Key": "plain-words"}},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    exported = home / ".vscode" / "mcp.json"
    assert main(["export", str(exported), "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert (
        "Written into servers.json itself, exported as placeholders: gh: env.GITHUB_TOKEN; gh: args[1];"
        " api: headers.X-Api-Key\n"
    ) in out
    text = exported.read_text()
    assert typed not in text and "plain-words" not in text
    entries = json.loads(text)["servers"]
    assert entries["gh"]["env"] == {"GITHUB_TOKEN": "${input:gh_GITHUB_TOKEN}", "LANG": "C"}
    assert entries["gh"]["args"] == ["--token", "${input:gh_arg1}"]
    assert entries["api"]["headers"] == {"X-Api-Key": "${input:api_X-Api-Key}"}
    assert [item["id"] for item in json.loads(text)["inputs"]] == ["api_X-Api-Key", "gh_GITHUB_TOKEN", "gh_arg1"]
