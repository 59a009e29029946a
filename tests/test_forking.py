"""A forked test process (`tests/forking.py`) looks, to whoever starts it, like the process it stands for:
its arguments, environment, folder and pipes; its exit status; a signal passed on; killed with its launcher.
Other tests lean on this when they start a test server through the forking process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.forking import forking_process, launcher_command, serve

pytestmark = pytest.mark.process


def _echo() -> int:
    """The forked child: reports what it was given, then does what its arguments ask."""
    print(sys.argv[1:], os.environ.get("FORK_PROBE"), os.getcwd(), flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    action = sys.argv[1]
    if action == "exit":
        raise SystemExit(int(sys.argv[2]))
    if action == "echo-stdin":
        print(sys.stdin.readline().strip().upper(), flush=True)
    if action == "wait":
        print(os.getpid(), flush=True)
        time.sleep(60)
    return 0


@pytest.fixture(scope="module")
def launcher() -> Iterator[list[str]]:
    with forking_process(__name__) as socket_path:
        yield launcher_command(socket_path)


def test_the_child_gets_its_arguments_environment_folder_and_pipes(launcher: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [*launcher, "echo-stdin", "x"],
        input="hello\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"FORK_PROBE": "seen", "PATH": os.environ["PATH"]},
        timeout=30,
    )
    assert done.stdout.splitlines() == [f"['echo-stdin', 'x'] seen {tmp_path}", "HELLO"]
    assert done.stderr == "to stderr\n"
    assert done.returncode == 0


def test_the_launcher_ends_with_the_childs_exit_status(launcher: list[str]) -> None:
    assert subprocess.run([*launcher, "exit", "7"], capture_output=True, timeout=30).returncode == 7


def test_a_signal_reaches_the_child_and_the_launcher_ends_as_it_did(launcher: list[str]) -> None:
    started = subprocess.Popen([*launcher, "wait"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert started.stdout is not None
    started.stdout.readline()
    child = int(started.stdout.readline())
    started.send_signal(signal.SIGTERM)
    assert started.wait(timeout=30) == -signal.SIGTERM
    assert _gone(child)


def test_a_launcher_killed_outright_takes_its_child_with_it(launcher: list[str]) -> None:
    started = subprocess.Popen([*launcher, "wait"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert started.stdout is not None
    started.stdout.readline()
    child = int(started.stdout.readline())
    started.kill()
    started.wait(timeout=30)
    assert _gone(child)


def _gone(pid: int, timeout: float = 10.0) -> bool:
    """The child has ended (it is the forking process's to reap: gone, or a zombie about to be)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False


if __name__ == "__main__":
    serve(sys.argv[1], _echo)
