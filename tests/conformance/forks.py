"""Conformance clients forked from one process that has already imported them.

The suite starts its client as a command, once per scenario; a fresh Python spends about a second
of CPU importing MCP Desk's connection and sign-in before its first request, most of a scenario's
cost. `client_forks()` keeps one process with `tests.conformance.client` imported and gives the
suite a launcher (`launch.py`, Python without site-packages: milliseconds) that passes its
arguments, environment, working folder and standard streams over a Unix socket. The forked child
runs the client on those streams and sends its exit status back, which the launcher exits with:
the suite sees what it always saw, a process on its pipes that signs in and exits.

    python -m tests.conformance.forks SOCKET    # the forking process (client_forks starts it)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

LAUNCHER: Final = Path(__file__).resolve().parent / "launch.py"
READY: Final = "ready"
STREAMS: Final = 3
"""stdin, stdout and stderr, passed in this order."""


@contextlib.contextmanager
def client_forks() -> Iterator[str]:
    """The command the suite runs as its client, served by a forking process while the block runs."""
    with tempfile.TemporaryDirectory(prefix="conformance-forks-") as folder:
        path = str(Path(folder) / "socket")
        server = subprocess.Popen(
            [sys.executable, "-m", __name__, path],
            cwd=Path(__file__).resolve().parents[2],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline().strip()
            if line != READY:
                raise RuntimeError(f"the conformance client's forking process did not start: {line!r}")
            yield f"{sys.executable} -S {LAUNCHER} {path}"
        finally:
            server.terminate()
            server.wait(timeout=10)


def serve(path: str, run: Callable[[], int]) -> None:
    """Fork a child running `run` for each launcher that connects to `path`."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(16)
        print(READY, flush=True)
        while True:
            connection, _ = listener.accept()
            sys.stdout.flush()
            sys.stderr.flush()
            if os.fork() == 0:
                listener.close()
                _child(connection, run)
            connection.close()


def _child(connection: socket.socket, run: Callable[[], int]) -> None:
    """Take on the launcher's streams, environment, folder and arguments; run; report the status."""
    status = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        request, streams = _receive(connection)
        for number, stream in enumerate(streams):
            os.dup2(stream, number)
            os.close(stream)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = [sys.argv[0], *request["argv"]]
        status = run()
    except BaseException:  # whatever happened, the launcher gets a status and the fork ends
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            connection.sendall(status.to_bytes(4, "big", signed=True))
        os._exit(status)


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The launcher's request (a length-prefixed JSON object) and its three stream descriptors."""
    data, streams, _flags, _address = socket.recv_fds(connection, 1 << 16, STREAMS)
    if len(streams) != STREAMS:
        raise RuntimeError(f"the launcher passed {len(streams)} streams, not {STREAMS}")
    size = int.from_bytes(data[:4], "big")
    while len(data) < 4 + size:
        more = connection.recv(1 << 16)
        if not more:
            raise RuntimeError("the launcher closed before its request was complete")
        data += more
    request: dict[str, Any] = json.loads(data[4 : 4 + size])
    return request, streams


if __name__ == "__main__":
    from tests.conformance.client import main  # the import each scenario's client would otherwise pay

    serve(sys.argv[1], main)
