"""How a stdio server's process ended, in words for its status: the SDK keeps the process to itself.

`stdio_client` spawns every server through one module-level function; wrapping it lets the
transport that opened a connection keep the process it got, and read its exit code once the
SDK has stopped it. The SDK also ends a server that outlives its pipes (SIGTERM, then SIGKILL):
that signal is ours, not how the server failed, so such a process is remembered as ended by us.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import mcp.client.stdio as sdk_stdio

_keeping: ContextVar[list[Any] | None] = ContextVar("mcp_desk_kept_processes", default=None)
_spawn = sdk_stdio._create_platform_compatible_process
_terminate = sdk_stdio._terminate_process_tree
_ended_by_us: set[int] = set()


async def _spawn_and_keep(*args: Any, **kwargs: Any) -> Any:
    process = await _spawn(*args, **kwargs)
    kept = _keeping.get()
    if kept is not None:
        kept.append(process)
    return process


async def _terminate_and_remember(process: Any) -> None:
    _ended_by_us.add(process.pid)
    await _terminate(process)


sdk_stdio._create_platform_compatible_process = _spawn_and_keep
sdk_stdio._terminate_process_tree = _terminate_and_remember


def ended_by_us(process: Any) -> bool:
    """Whether the SDK had to kill the process at shutdown (ask once per process: it is forgotten)."""
    if process.pid not in _ended_by_us:
        return False
    _ended_by_us.discard(process.pid)
    return True


@contextlib.contextmanager
def keeping_processes() -> Iterator[list[Any]]:
    """Collects the processes `stdio_client` spawns while this is entered (in this task)."""
    kept: list[Any] = []
    token = _keeping.set(kept)
    try:
        yield kept
    finally:
        _keeping.reset(token)


def describe_exit(returncode: int) -> str:
    """`the server exited with code 3`, or `the server was ended by SIGKILL` (POSIX signals are negative)."""
    if returncode >= 0:
        return f"the server exited with code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return f"the server was ended by {name}"
