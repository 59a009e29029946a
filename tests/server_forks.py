"""The Python test servers a test starts as processes, forked from one that has imported the SDK (`forking.py`).

A host given `python tests/servers/x.py ARGS` (or the demo server's `python -m desktop_app.demo_server`)
starts, in a test, `python -S -I tests/fork_launch.py SOCKET tests/servers/x.py ARGS`: a launcher of a few
milliseconds whose forked child runs the script as `python` would, on the pipes the host made, in the
environment and folder the host gave. About half a second of CPU saved per server start. The host's own
code (the SDK's stdio client, the stderr pump, exit reports, the kill at the end) runs as for any server.

A sandboxed entry starts for real (the launcher could not reach the socket from inside the sandbox), and
so does every server of a test marked `@pytest.mark.own_process`: one whose subject is the process itself
(what it leaves behind, its process group).

    python -m tests.server_forks SOCKET    # the forking process (one per test worker: `start`)
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import runpy
import sys
import tempfile
from pathlib import Path
from typing import Final

from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.forking import ROOT, ForkingProcess, launcher_command, serve

SERVERS: Final = ROOT / "tests" / "servers"
DEMO_SERVER: Final = ("-m", "desktop_app.demo_server")
_PRELOADED: Final = ("fixture_server", "asking_server", "ledger_server", "tasks_server", "skills_server")
"""Test servers imported by the forking process: what their scripts import is then shared by every child."""

_forks: ForkingProcess | None = None


def forked(config: ServerConfig) -> ServerConfig:
    """`config` started through the forking process when it runs a test server unconfined, else unchanged."""
    if config.sandbox_enabled or test_server_args(config) is None:
        return config
    return dataclasses.replace(config, command=sys.executable, args=(*launcher_command(_socket())[1:], *config.args))


def test_server_args(config: ServerConfig) -> list[str] | None:
    """The arguments of a test server's command line (`tests/servers/x.py ARGS`, or the demo server's
    `-m desktop_app.demo_server`) run by this interpreter over stdio; None for any other entry."""
    if config.transport is not TransportKind.STDIO or config.command != sys.executable or not config.args:
        return None
    args = list(config.args)
    if tuple(args) == DEMO_SERVER:
        return args
    return args if Path(args[0]).parent == SERVERS and args[0].endswith(".py") else None


def start() -> None:
    """Start this worker's forking process now, so that the first test server waits less for it (or not at
    all); it is stopped when the worker ends. Started again if it has stopped."""
    global _forks
    if _forks is None or _forks.process.poll() is not None:
        folder = tempfile.mkdtemp(prefix="server-forks-")
        _forks = ForkingProcess(__name__, folder)
        atexit.register(_stop, _forks, folder)


def _socket() -> str:
    start()
    assert _forks is not None
    return _forks.ready()


def _stop(forks: ForkingProcess, folder: str) -> None:
    forks.stop()
    with contextlib.suppress(OSError):
        os.unlink(forks.socket)
        os.rmdir(folder)


def run_as_python() -> int:
    """Run `sys.argv[1:]` as `python` runs its arguments: a script and its arguments, or `-m MODULE ARGS`."""
    argv = sys.argv[1:]
    if argv[:1] == ["-m"]:
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = os.path.abspath(argv[0])
    sys.argv = argv
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.path.insert(1, str(SERVERS))
    for name in _PRELOADED:
        __import__(name)
    __import__("desktop_app.demo_server")
    sys.path.remove(str(SERVERS))
    serve(sys.argv[1], run_as_python)
