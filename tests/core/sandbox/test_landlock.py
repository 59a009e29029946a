"""The Landlock ruleset, built from a planted tree: everything readable but the hidden places, writable only
where allowed, and the command line that carries it. These need no Landlock in the kernel."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.core.sandbox.bubblewrap import Layout, cache_folder
from desktop_app.core.sandbox.landlock import READ, READ_FILE, WRITE, WRITE_FILE, Rules, handled_fs
from desktop_app.core.sandbox.landlock_launcher import CANNOT_CONFINE, FLAG
from desktop_app.core.sandbox.landlock_rules import (
    RULES_FILE,
    build_rules,
    cover,
    hidden_places,
    landlock_command,
    started_notes,
)
from desktop_app.core.sandbox.settings import SandboxSettings


def tree(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.write_text(name)


def test_cover_grants_everything_but_the_hidden_places(tmp_path: Path) -> None:
    tree(tmp_path, "a/keys/id", "a/b/c.txt", "a/d.txt", "e/f.txt", "g.txt")
    (tmp_path / "a" / "to-keys").symlink_to(tmp_path / "a" / "keys")
    got = cover(str(tmp_path), [str(tmp_path / "a" / "keys")])
    assert got == [str(tmp_path / p) for p in ("a/b", "a/d.txt", "e", "g.txt")]  # the link is skipped


def test_cover_of_a_hidden_place_or_inside_one_is_empty(tmp_path: Path) -> None:
    tree(tmp_path, "keys/id")
    assert cover(str(tmp_path / "keys"), [str(tmp_path / "keys")]) == []
    assert cover(str(tmp_path / "keys" / "id"), [str(tmp_path / "keys")]) == []
    assert cover(str(tmp_path), []) == [str(tmp_path)]


def test_cover_splits_for_a_hidden_place_that_does_not_exist_yet(tmp_path: Path) -> None:
    tree(tmp_path, "docs/a.txt")
    assert cover(str(tmp_path), [str(tmp_path / ".aws")]) == [str(tmp_path / "docs")]  # a later .aws stays out


def layout_in(home: Path) -> Layout:
    app = home / ".config" / "mcp-desk"
    return Layout(
        home, (app, home / ".local/share/mcp-desk", home / ".cache/mcp-desk"), home / ".cache/mcp-desk/sandbox"
    )


def granted(rules: Rules, path: Path, rights: int) -> bool:
    """Whether some grant reaches `path` with all of `rights` (Landlock: a rule covers all beneath it)."""
    return any(
        (str(path) == place or str(path).startswith(place.rstrip("/") + "/")) and granted & rights == rights
        for place, granted in rules.grants
    )


@pytest.fixture
def home() -> Iterator[Path]:
    """A home outside /tmp, which the ruleset hides whole."""
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="landlock-home-") as folder:
        yield Path(folder).resolve()


def test_rules_hide_secrets_and_write_only_where_allowed(home: Path, tmp_path: Path) -> None:
    tree(home, ".ssh/id_rsa", ".config/mcp-desk/settings.json", ".config/other/x", "private/diary", "notes/lock/x")
    tree(home, "notes/a.txt", "readme.txt")
    settings = SandboxSettings(
        allow_write=("~/notes", "~/.ssh"), deny_read=("~/private",), deny_write=("~/notes/lock",)
    )
    layout = layout_in(home)
    temp = str(tmp_path / "own-tmp")
    project = tmp_path / "project"
    tree(project, "src/main.py")
    rules = build_rules("files", settings, [project.as_uri()], layout, temp, proxy_socket="/run/p.sock")
    assert granted(rules, project / "src/main.py", READ | WRITE)  # a root in /tmp, as in bubblewrap
    for secret in (home / ".ssh/id_rsa", home / ".config/mcp-desk/settings.json", home / "private/diary"):
        assert not granted(rules, secret, READ_FILE), secret
    assert granted(rules, home / "readme.txt", READ)
    assert granted(rules, home / ".config/other/x", READ)
    assert granted(rules, Path(sys.executable).resolve(), READ)
    assert granted(rules, home / "notes/a.txt", READ | WRITE)
    assert granted(rules, home / "notes/lock/x", READ) and not granted(rules, home / "notes/lock/x", WRITE)
    assert not granted(rules, home / ".ssh/id_rsa", WRITE)  # allowWrite cannot unhide a hidden place
    assert not granted(rules, home / "readme.txt", WRITE)
    assert not granted(rules, Path("/tmp/anything"), READ_FILE)
    assert granted(rules, Path(temp), READ | WRITE)
    own = cache_folder(layout, "files")
    assert granted(rules, own / ".npm", READ | WRITE) and (own / ".npm").is_dir()
    assert granted(rules, Path("/dev/null"), WRITE_FILE)
    environment = dict(rules.environment)
    assert environment["TMPDIR"] == temp and environment["npm_config_cache"] == str(own / ".npm")
    assert rules.connect_ports == () and rules.proxy_socket == "/run/p.sock"


def test_hidden_places_hold_links_as_they_really_are(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tree(home, "real-keys/id")
    (home / ".ssh").symlink_to(home / "real-keys")
    places = hidden_places("files", SandboxSettings(), layout_in(home))
    assert str(home / ".ssh") in places and os.path.realpath(home / "real-keys") in places
    assert "/tmp" in places and "/etc/shadow" in places


def test_rules_cross_a_command_line_unchanged(tmp_path: Path) -> None:
    rules = Rules((("/usr", READ), ("/home/a b/ü", READ | WRITE)), (8080,), (("TMPDIR", "/t"),), None)
    assert Rules.from_json(rules.to_json()) == rules


def test_command_runs_the_launcher_isolated_before_the_server(tmp_path: Path) -> None:
    home = (tmp_path / "home").resolve()
    tree(home, "readme.txt")
    argv = landlock_command(
        "npx",
        ["-y", "server"],
        server="files",
        settings=SandboxSettings(),
        roots=(),
        layout=layout_in(home),
        temp_dir=str(tmp_path),
    )
    assert argv[:3] == [sys.executable, "-I", "-S"] and argv[3].endswith("landlock_launcher.py")
    assert Rules.from_json(argv[4]).environment[0] == ("TMPDIR", str(tmp_path))
    assert argv[5:] == ["--", "npx", "-y", "server"]
    assert FLAG == "--sandbox-landlock"


def test_every_right_of_the_abi_is_handled() -> None:
    assert handled_fs(1) == (1 << 13) - 1
    assert handled_fs(3) == (1 << 15) - 1
    assert handled_fs(7) == (1 << 16) - 1


def test_a_server_that_cannot_be_confined_is_not_started(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    argv = landlock_command(
        "sh",
        ["-c", f"touch {marker}"],
        server="x",
        settings=SandboxSettings(),
        roots=(),
        layout=layout_in(tmp_path),
        temp_dir=str(tmp_path),
    )
    argv[4] = '{"grants": "not a list of grants"}'
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == CANNOT_CONFINE
    assert "cannot confine sh with Landlock, so it was not started" in done.stderr
    assert not marker.exists()


def test_rules_too_long_for_one_argument_go_in_a_file(home: Path, tmp_path: Path) -> None:
    tree(home, ".ssh/id_rsa", *(f"entry-{'x' * 40}-{n}.txt" for n in range(2000)))
    argv = landlock_command(
        "true", [], server="x", settings=SandboxSettings(), roots=(), layout=layout_in(home), temp_dir=str(tmp_path)
    )
    assert argv[4] == "@" + str(tmp_path / RULES_FILE)
    rules = Rules.from_json((tmp_path / RULES_FILE).read_text())
    assert granted(rules, home / f"entry-{'x' * 40}-1999.txt", READ)


def test_the_log_says_what_a_landlocked_server_may_reach() -> None:
    listed = SandboxSettings(allowed_domains=("api.example.com",), denied_domains=("x.example.com",))
    assert started_notes(None, 7) == [("info", "sandboxed: Landlock (files read-only, secrets hidden, no TCP network)")]
    assert (
        "TCP only to api.example.com through the sandbox's proxy, never to x.example.com"
        in started_notes(listed, 4)[0][1]
    )
    assert "network not filtered: this kernel's Landlock (ABI 3) cannot restrict TCP" in started_notes(listed, 3)[0][1]
