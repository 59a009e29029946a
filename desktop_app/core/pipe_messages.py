"""Messages between the app and a worker process of its own, over the worker's stdin and stdout.

Each message is a 4-byte big-endian length followed by a pickle; both ends are this application.
A worker calls `die_with_the_app` first, so it never outlives the app.
"""

from __future__ import annotations

import contextlib
import pickle
import struct
import sys
from typing import IO, Any, Final

_HEADER: Final = struct.Struct(">I")


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
