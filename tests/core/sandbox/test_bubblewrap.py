"""The bubblewrap command line: namespaces, what is hidden, what is writable, and that denials win."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox.bubblewrap import (
    ISOLATION,
    Layout,
    bubblewrap_command,
    cache_folder,
    interpreters,
    launch_folders,
)
from desktop_app.core.sandbox.probe import BUBBLEWRAP, probe
from desktop_app.core.sandbox.settings import SandboxSettings


def _layout(tmp_path: Path) -> Layout:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".netrc").write_text("machine x password y")
    app = home / ".local" / "share" / "mcp-desk"
    app.mkdir(parents=True)
    return Layout(home, (app,), tmp_path / "caches")


def _pairs(argv: list[str], option: str) -> list[tuple[str, str]]:
    return [(argv[i + 1], argv[i + 2]) for i, arg in enumerate(argv) if arg == option]


def test_namespaces_and_no_capabilities(tmp_path: Path) -> None:
    argv = bubblewrap_command(
        "/usr/bin/bwrap",
        "node",
        ["server.js"],
        server="s",
        settings=SandboxSettings(),
        roots=(),
        cwd=None,
        layout=_layout(tmp_path),
    )
    assert argv[0] == "/usr/bin/bwrap" and argv[-3:] == ["--", "node", "server.js"]
    for option in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent"):
        assert option in ISOLATION and option in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert argv[argv.index("--proc") + 1] == "/proc" and argv[argv.index("--tmpfs") + 1] == "/tmp"


def test_secret_places_are_hidden_folders_by_tmpfs_files_by_dev_null(tmp_path: Path) -> None:
    layout = _layout(tmp_path)
    argv = bubblewrap_command(
        "bwrap", "x", [], server="s", settings=SandboxSettings(), roots=(), cwd=None, layout=layout
    )
    tmpfs = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--tmpfs"]
    assert str(layout.home / ".ssh") in tmpfs and str(layout.app_folders[0]) in tmpfs
    assert ("/dev/null", str(layout.home / ".netrc")) in _pairs(argv, "--ro-bind")


def test_denials_are_mounted_after_the_writable_places_so_they_win(tmp_path: Path) -> None:
    layout = _layout(tmp_path)
    work = tmp_path / "work"
    (work / "keep").mkdir(parents=True)
    (work / "secret").mkdir()
    settings = SandboxSettings(
        allow_write=(str(work), str(tmp_path / "missing")),
        deny_write=(str(work / "keep"),),
        deny_read=(str(work / "secret"),),
    )
    root = tmp_path / "root folder"
    root.mkdir()
    argv = bubblewrap_command(
        "bwrap", "x", [], server="s", settings=settings, roots=(root.as_uri(),), cwd=str(work), layout=layout
    )
    binds = _pairs(argv, "--bind")
    assert (str(work), str(work)) in binds and (str(root), str(root)) in binds
    assert all(str(tmp_path / "missing") not in pair for pair in binds)  # nothing to mount: left out
    assert argv.index(str(work / "keep")) > argv.index(str(work))
    assert (
        argv.index(str(work / "secret")) > argv.index(str(work))
        and argv[argv.index(str(work / "secret")) - 1] == "--tmpfs"
    )
    assert argv[argv.index("--chdir") + 1] == str(work)


def test_each_server_gets_its_own_package_caches(tmp_path: Path) -> None:
    layout = _layout(tmp_path)
    argv = bubblewrap_command(
        "bwrap", "npx", [], server="a/b", settings=SandboxSettings(), roots=(), cwd=None, layout=layout
    )
    own = cache_folder(layout, "a/b")
    assert (str(own / ".npm"), str(layout.home / ".npm")) in _pairs(argv, "--bind")
    assert own.parent == layout.caches and "/" not in own.name
    assert cache_folder(layout, "a/b") != cache_folder(layout, "a_b")


@pytest.mark.parametrize("path", ["${HOME}/notes", "notes"])
def test_a_path_not_absolute_once_expanded_refuses_to_start(tmp_path: Path, path: str) -> None:
    with pytest.raises(ConfigError, match=r"server 'files': sandbox path .* is not an absolute path"):
        bubblewrap_command(
            "bwrap",
            "x",
            [],
            server="files",
            settings=SandboxSettings(allow_write=(path,)),
            roots=(),
            cwd=None,
            layout=_layout(tmp_path),
        )


def test_home_shorthand_is_the_users_home(tmp_path: Path) -> None:
    layout = _layout(tmp_path)
    (layout.home / "notes").mkdir()
    argv = bubblewrap_command(
        "bwrap",
        "x",
        [],
        server="s",
        settings=SandboxSettings(allow_write=("~/notes",)),
        roots=(),
        cwd=None,
        layout=layout,
    )
    assert (str(layout.home / "notes"), str(layout.home / "notes")) in _pairs(argv, "--bind")


def test_a_server_launched_from_a_private_place_still_sees_its_own_folder(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "bin").mkdir(parents=True)
    program, script = checkout / "bin" / "python", checkout / "server.py"
    program.write_text(""), script.write_text("")
    place = str(tmp_path)  # stands for /tmp: a place the sandbox replaces by an empty one
    launched = [str(program), str(script), "--flag", "relative/path", str(tmp_path / "missing")]
    assert launch_folders(launched, None, [place]) == [str(checkout)]  # that folder only, not the whole place
    assert launch_folders(["/usr/bin/python3", str(script)], str(checkout), ["/nowhere"]) == []


@pytest.mark.parametrize("shebang", ["{python}", "/usr/bin/env python3"])
def test_a_script_whose_interpreter_lives_in_a_private_place_starts_sandboxed(
    monkeypatch: pytest.MonkeyPatch, shebang: str
) -> None:
    """A server script run by a virtual environment's Python in /tmp: the sandbox's empty /tmp would hide the
    interpreter, in a folder other than the script's, so the server could not start."""
    support = probe()
    if support.tier != BUBBLEWRAP or support.program is None:
        pytest.skip(f"bubblewrap cannot run here: {support.problem}")
    with (
        tempfile.TemporaryDirectory(dir="/tmp", prefix="interpreter-") as venv,
        tempfile.TemporaryDirectory(dir="/tmp", prefix="checkout-") as checkout,
        tempfile.TemporaryDirectory(dir="/var/tmp", prefix="sandbox-home-") as home,
    ):
        python = Path(venv) / "bin" / "python3"
        python.parent.mkdir()
        python.symlink_to(os.path.realpath(sys.executable))
        script = Path(checkout) / "server.py"
        script.write_text(f"#!{shebang.format(python=python)}\nimport sys\nprint('started by', sys.executable)\n")
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}")
        layout = Layout(Path(home), (), Path(home) / "caches")
        argv = bubblewrap_command(
            support.program, str(script), [], server="s", settings=SandboxSettings(), roots=(), cwd=None, layout=layout
        )
        ran = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.strip() == f"started by {python}"
        listing = [*argv[: argv.index("--")], "--", "ls", "-A", "/tmp"]
        seen = subprocess.run(listing, capture_output=True, text=True, timeout=30, check=True)
        assert sorted(seen.stdout.split()) == sorted([Path(checkout).name, Path(venv).name])  # nothing else of /tmp


def test_interpreters_follow_only_executable_files(tmp_path: Path) -> None:
    """A `#!` line is the script's text: naming a folder, a missing program or a bare name opens nothing."""
    for name, line in (("folder", f"#!{tmp_path}"), ("missing", "#!/nowhere/python"), ("bare", "#!python3")):
        (tmp_path / name).write_text(line + "\n")
    assert [interpreters(str(tmp_path / name)) for name in ("folder", "missing", "bare")] == [[], [], []]
    assert interpreters(str(tmp_path)) == []  # a folder is no script
    (tmp_path / "env").write_text("#!/usr/bin/env -S sh -e\n")
    assert interpreters(str(tmp_path / "env")) == [shutil.which("sh")]
