"""Processes forked from one that has already imported what they need, started by a command of milliseconds.

A Python process that runs an MCP client or server spends about half a second of CPU importing the SDK
before its first message: most of a short test's cost. A forking process imports it once and forks a
child for each launcher (`fork_launch.py`) that connects to its socket; the child takes on the launcher's
arguments, environment, working folder and standard streams. The launcher passes signals on to the child
and ends as the child ended, so whoever started it sees what it always saw: a process on its pipes that
answers, and exits with the status it reports. If the launcher is killed outright, the child is killed.

What differs from a fresh process: the child is not the launcher's child (it lives in the forking
process's session), and what the forking process imported was imported under its environment. Tests
whose subject is the process itself (its descendants, its session) start it for real.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

LAUNCHER: Final = Path(__file__).resolve().parent / "fork_launch.py"
ROOT: Final = Path(__file__).resolve().parents[1]
READY: Final = "ready"
STREAMS: Final = 3
"""stdin, stdout and stderr, passed in this order."""


def launcher_command(socket_path: str) -> list[str]:
    """The command prefix that starts a forked child (its arguments follow)."""
    return [sys.executable, "-S", "-I", str(LAUNCHER), socket_path]


@contextlib.contextmanager
def forking_process(module: str) -> Iterator[str]:
    """Run `python -m module SOCKET` (which calls `serve`) while the block runs; yields its socket's path."""
    with tempfile.TemporaryDirectory(prefix="forks-") as folder:
        forks = ForkingProcess(module, folder)
        try:
            yield forks.ready()
        finally:
            forks.stop()


class ForkingProcess:
    """`python -m module SOCKET`, started at once, with its socket in `folder`; `ready()` waits for it.

    It ends, with its children, when its standard input closes: when `stop` closes it, or when the process
    that started it ends however it ends."""

    def __init__(self, module: str, folder: str) -> None:
        self.module = module
        self.socket = str(Path(folder) / "socket")
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, self.socket],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._ready = False

    def ready(self) -> str:
        """The socket, once the process accepts launchers (about a second after it starts)."""
        if not self._ready:
            assert self.process.stdout is not None
            line = self.process.stdout.readline().strip()
            if line != READY:
                self.process.kill()
                raise RuntimeError(f"the forking process {self.module} did not start: {line!r}")
            self._ready = True
        return self.socket

    def stop(self) -> None:
        """End it and the children still running."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def serve(path: str, run: Callable[[], int]) -> None:
    """Fork a child running `run` for each launcher that connects to `path`; report how each one ended.
    Returns, having killed the children still running, when standard input closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(64)
        forks = _Forks(listener, run)
        gc.freeze()  # what is imported now is shared with every child, not copied by its collections
        print(READY, flush=True)
        try:
            while forks.serve_once():
                pass
        finally:
            forks.kill_all()


class _Forks:
    """The forking process's state: its listener, the children running and their launchers' connections."""

    def __init__(self, listener: socket.socket, run: Callable[[], int]) -> None:
        self.listener = listener
        self.run = run
        self.children: dict[int, socket.socket] = {}
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up byte is written
        self.events = selectors.DefaultSelector()
        self.events.register(listener, selectors.EVENT_READ)
        self.events.register(self.wake_read, selectors.EVENT_READ)
        self.events.register(sys.stdin.fileno(), selectors.EVENT_READ)

    def serve_once(self) -> bool:
        """Handle what is ready; False once standard input has closed."""
        for key, _ in self.events.select():
            if key.fileobj is self.listener:
                self._fork()
            elif key.fileobj == self.wake_read:
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake_read, 512)
                self._report_ended()
            elif key.fileobj == sys.stdin.fileno():
                if not os.read(sys.stdin.fileno(), 512):
                    return False
            else:
                self._watch_launcher(key.data)
        return True

    def kill_all(self) -> None:
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def _fork(self) -> None:
        connection, _ = self.listener.accept()
        try:
            request, streams = _receive(connection)
        except (OSError, RuntimeError, ValueError):
            connection.close()
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            for other in (self.listener, *self.children.values(), connection):
                other.close()
            self.events.close()
            os.close(self.wake_read)
            _child(request, streams, self.run)
        for stream in streams:
            os.close(stream)
        self.children[pid] = connection
        try:
            connection.sendall(pid.to_bytes(4, "big"))
        except OSError:
            os.kill(pid, signal.SIGKILL)
        self.events.register(connection, selectors.EVENT_READ, pid)

    def _watch_launcher(self, pid: int) -> None:
        """A launcher's connection closed before its child ended: the launcher was killed, and so is the child."""
        connection = self.children[pid]
        with contextlib.suppress(OSError):
            if connection.recv(1):
                return
        self.events.unregister(connection)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    def _report_ended(self) -> None:
        """Reap every ended child and send its wait status to its launcher."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = self.children.pop(pid, None)
            if connection is None:
                continue
            with contextlib.suppress(KeyError, ValueError):
                self.events.unregister(connection)
            with contextlib.suppress(OSError):
                connection.sendall(status.to_bytes(4, "big"))
            connection.close()


def _child(request: dict[str, Any], streams: list[int], run: Callable[[], int]) -> None:
    """Take on the launcher's streams, environment, folder and arguments; run; end as Python would."""
    status = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for number, stream in enumerate(streams):
            os.dup2(stream, number)
            os.close(stream)
        _fresh_standard_streams()
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = [sys.argv[0], *request["argv"]]
        gc.unfreeze()
        status = run()
    except SystemExit as end:
        status = _exit_status(end.code)
    except KeyboardInterrupt:  # as Python ends on an unhandled Ctrl+C: killed by SIGINT
        traceback.print_exc()
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()  # what the child registered, as an ending interpreter runs them
        _flush()
        os._exit(status)


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _fresh_standard_streams() -> None:
    """New text streams on descriptors 0–2, as a starting interpreter opens them for pipes (kept for the
    child's life, as the interpreter's own are)."""
    encoding = sys.stdout.encoding
    sys.stdin = sys.__stdin__ = open(0, encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(1, "w", encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        2, "w", buffering=1, encoding=encoding, errors="backslashreplace", closefd=False
    )


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The launcher's request (a length-prefixed JSON object) and its three stream descriptors."""
    data, streams, _flags, _address = socket.recv_fds(connection, 1 << 16, STREAMS)
    if len(streams) != STREAMS:
        for stream in streams:
            os.close(stream)
        raise RuntimeError(f"the launcher passed {len(streams)} streams, not {STREAMS}")
    size = int.from_bytes(data[:4], "big")
    while len(data) < 4 + size:
        more = connection.recv(1 << 16)
        if not more:
            raise RuntimeError("the launcher closed before its request was complete")
        data += more
    request: dict[str, Any] = json.loads(data[4 : 4 + size])
    return request, streams
