"""`mcp-desk`'s dispatch: every command is listed in `--help` and resolves to a runnable function; the
window is painted before the core loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app import __version__
from desktop_app.__main__ import COMMANDS, main


def test_help_lists_every_command_and_option() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    listing = done.stdout.split("commands:", 1)[1].splitlines()
    for command in COMMANDS:
        assert any(line.split()[:1] == [command.word] for line in listing), command.word
    assert "--config FILE" in done.stdout and "--version" in done.stdout


def test_every_command_loads() -> None:
    for command in COMMANDS:
        assert callable(command.load()), command.entry


def test_commands_get_their_own_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--help"]) == 0
    assert "usage: mcp-desk run" in capsys.readouterr().out
    assert main(["--self-test", "extra"]) == 2
    assert "unexpected arguments: extra" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"mcp-desk {__version__}\n"


FIRST_PAINT_PROBE = """
import json, os, sys
from PySide6.QtCore import QEvent, QObject
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.__main__ import main


class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            print(json.dumps(sorted(sys.modules)), flush=True)
            os._exit(0)  # nothing was started yet: no server, no worker
        return False


show = MainWindow.show


def probed_show(self):
    self.probe = FirstPaint()
    self.installEventFilter(self.probe)
    show(self)


MainWindow.show = probed_show
main([])
"""


def test_the_window_is_painted_before_the_event_loop_the_core_and_the_sdk_load(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [sys.executable, "-c", FIRST_PAINT_PROBE], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    heavy = {"asyncio", "qasync", "mcp", "pydantic", "litellm", "desktop_app.bridge", "desktop_app.session"}
    assert not loaded & heavy, "the window's first paint waits for these"
    assert not any(name.startswith("desktop_app.core.") for name in loaded - {"desktop_app.core.paths"})
