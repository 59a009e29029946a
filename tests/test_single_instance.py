"""Real `mcp-desk` processes: one instance per configuration, a crash's stale lock, quitting by signal; and
the instance lock's folder kept private."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.core.paths import data_dir
from desktop_app.single_instance import claim
from tests.file_modes import mode
from tests.hosting import FIXTURE_SCRIPT, live_children

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 90.0
"""Generous: a loaded machine can take tens of seconds to import Qt and start the servers."""


def app_command(config: Path) -> list[str]:
    return [sys.executable, "-m", "desktop_app", "--config", str(config)]


def app_env(home: Path) -> dict[str, str]:
    """Offscreen, with configuration and data under `home`: the instance lock lives there too."""
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "LITELLM_OFFLINE_MODE": "true",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


class App:
    """One `python -m desktop_app` process on a given configuration, its output kept in a file."""

    def __init__(self, config: Path, home: Path, name: str) -> None:
        self.stderr_path = home / f"{name}.stderr"
        with self.stderr_path.open("w") as stderr:
            self.process = subprocess.Popen(
                app_command(config), cwd=ROOT, env=app_env(home), stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr
            )

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def server_children(self) -> list[int]:
        """The app's running MCP server processes (the fixture server, over stdio)."""
        return [pid for pid in live_children(self.process.pid) if "fixture_server" in _cmdline(pid)]

    def wait_until_serving(self) -> list[int]:
        deadline = time.monotonic() + START_TIMEOUT
        while not (children := self.server_children()):
            assert self.process.poll() is None, f"the app exited early:\n{self.stderr}"
            assert time.monotonic() < deadline, f"the app never started its server:\n{self.stderr}"
            time.sleep(0.1)
        return children

    def wait_exit(self, timeout: float = START_TIMEOUT) -> int:
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _exists(pid: int) -> bool:
    return (Path("/proc") / str(pid)).exists()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}}}))
    return path


@pytest.fixture
def apps(config: Path, tmp_path: Path) -> Iterator[list[App]]:
    started: list[App] = []
    yield started
    for app in started:
        app.kill()


def second_launch(config: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(app_command(config), cwd=ROOT, env=app_env(home), capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_second_launch_shows_the_first_and_a_crash_leaves_no_lock(
    config: Path, tmp_path: Path, apps: list[App]
) -> None:
    first = App(config, tmp_path, "first")
    apps.append(first)
    first.wait_until_serving()
    again = second_launch(config, tmp_path)
    assert again.returncode == 0, again.stderr
    assert "already running" in again.stderr and "brought to the front" in again.stderr
    assert first.process.poll() is None

    # A crash leaves its lock file and socket behind; the next start must not be blocked by them.
    first.kill()
    assert list((tmp_path / "data" / "mcp-desk" / "instances").glob("*.lock")), "the crash left its lock"
    after_crash = App(config, tmp_path, "after-crash")
    apps.append(after_crash)
    after_crash.wait_until_serving()
    again = second_launch(config, tmp_path)
    assert again.returncode == 0 and "already running" in again.stderr, again.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_quits_in_order_and_leaves_no_child(
    signum: signal.Signals, config: Path, tmp_path: Path, apps: list[App]
) -> None:
    app = App(config, tmp_path, "app")
    apps.append(app)
    servers = app.wait_until_serving()
    app.process.send_signal(signum)
    assert app.wait_exit() == 0, app.stderr
    assert not [pid for pid in servers if _exists(pid)], "the server outlived the app"
    assert "Traceback" not in app.stderr
    # Stopped in order: the lock was released, so the next launch starts as the instance.
    again = App(config, tmp_path, "again")
    apps.append(again)
    again.wait_until_serving()


@pytest.mark.usefixtures("wide_umask")
def test_starting_tightens_the_apps_data_folder(qapp: QApplication, tmp_path: Path) -> None:
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # another tool made it first
    instance = claim(tmp_path / "servers.json")
    assert instance is not None
    try:
        assert mode(folder) == 0o700 and mode(folder / "instances") == 0o700
    finally:
        instance.release()
