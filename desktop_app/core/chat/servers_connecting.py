"""A message sent while servers are still connecting waits for them, briefly.

Right after the app starts (or a server is enabled) its servers take a second or two to hand over their
listings. A message sent in that time would give the model a catalog saying no server is connected, and
the model would answer without the user's resources and tools. So the turn first waits for the servers on
their first attempt, `ChatOptions.connecting_wait` at most (the model library loads meanwhile, so the wait
seldom delays the request); one still connecting then is left out of this request and named. A server
retrying after a failure, or waiting for a sign-in, is not waited for: its state is already shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Final

from desktop_app.core.connection.owner import ServerConnection
from desktop_app.core.server_status import ServerState

_NEXT_STATUS_S: Final = 0.02


def connecting(connections: Mapping[str, ServerConnection]) -> tuple[str, ...]:
    """The servers on their first attempt to connect (or started and about to), in the configuration's order."""
    return tuple(
        name
        for name, connection in connections.items()
        if connection.running
        and connection.status.attempt == 0
        and connection.status.state in (ServerState.STARTING, ServerState.STOPPED)
    )


async def wait_connected(
    connections: Mapping[str, ServerConnection], names: tuple[str, ...], timeout: float
) -> tuple[str, ...]:
    """Wait until each of `names` is ready, failed or stopped, `timeout` seconds at most; those still
    connecting then."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    chosen = {name: connections[name] for name in names if name in connections}
    while (still := connecting(chosen)) and (left := deadline - loop.time()) > 0:
        waits = [asyncio.ensure_future(chosen[name].wait_settled()) for name in still]
        try:
            await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        if connecting(chosen) == still:  # started but its task has not begun yet: its status comes next
            await asyncio.sleep(_NEXT_STATUS_S)
    return connecting(chosen)
