"""The app's worker processes: started by `start_worker`, spoken to over their stdin and stdout.

Each message is a 4-byte big-endian length followed by a pickle; both ends are this application.
A worker that may stay busy without reading its pipe calls `die_with_the_app` first, from a thread
that lives as long as the app (the kernel ties that to the thread that started the worker).
"""

from __future__ import annotations

import contextlib
import pickle
import struct
import subprocess
import sys
from typing import IO, Any, Final

_HEADER: Final = struct.Struct(">I")


def start_worker(flag: str, module: str) -> subprocess.Popen[bytes]:
    """Start a worker: `mcp-desk <flag>` in a frozen (PyInstaller) build, else `python -m <module>`.
    Its stdin and stdout carry the messages; its stderr is dropped (and it opens no console on Windows)."""
    frozen = getattr(sys, "frozen", False)
    return subprocess.Popen(
        [sys.executable, flag] if frozen else [sys.executable, "-m", module],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
    )


def write_message(stream: IO[bytes], message: object) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def read_message(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    payload = _read_exactly(stream, _HEADER.unpack(header)[0])
    return None if payload is None else pickle.loads(payload)  # both ends are this application


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def die_with_the_app() -> None:
    """A worker can stay busy for minutes without reading its pipe: on Linux, let the kernel end
    it with the app. (Elsewhere it ends at its next read, when the pipe is closed.)"""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import os
    import signal

    parent = os.getppid()
    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the app went before the request took effect
        os._exit(0)
