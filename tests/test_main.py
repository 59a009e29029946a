"""`mcp-desk`'s dispatch: every command is listed in `--help` and resolves to a runnable function."""

from __future__ import annotations

import subprocess
import sys

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
