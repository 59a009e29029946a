"""Conformance clients forked from one process that has already imported them (`tests/forking.py`).

The suite starts its client as a command, once per scenario; a fresh Python spends about a second
of CPU importing MCP Desk's connection and sign-in before its first request, most of a scenario's
cost. `client_forks()` keeps one process with `tests.conformance.client` imported and gives the
suite a launcher of a few milliseconds in its place: the suite sees what it always saw, a process on
its pipes that signs in and exits.

    python -m tests.conformance.forks SOCKET    # the forking process (client_forks starts it)
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Iterator

from tests.forking import forking_process, launcher_command, serve


@contextlib.contextmanager
def client_forks() -> Iterator[str]:
    """The command the suite runs as its client, served by a forking process while the block runs."""
    with forking_process(__name__) as socket_path:
        yield shlex.join(launcher_command(socket_path))


if __name__ == "__main__":
    from tests.conformance.client import main  # the import each scenario's client would otherwise pay

    serve(sys.argv[1], main)
