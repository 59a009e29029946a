"""Stopping a connection, and quitting the host, always end: no owner task waits forever, no server is left.

The SDK winds a stdio server down under an anyio shield (close stdin, wait, SIGTERM, SIGKILL); a native
`Task.cancel()` of the owner landing mid-way abandoned it, with the server alive, and the owner then
waited forever on the server's stdout. These tests stop at those moments with real servers over stdio;
their `fail_after` only turns a hang into a failure.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from desktop_app.core.connection import ServerConnection
from desktop_app.core.events import EventBus
from desktop_app.core.host import ServerHost
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from tests.core.connection import stubborn_server
from tests.core.connection.stubborn_server import LINGERING
from tests.hosting import FAST_RESTARTS, eventually, fixture_config, live_children

pytestmark = pytest.mark.anyio

HANG_GUARD_S = 60.0
"""Not a speed goal: a stop takes a few seconds at most, and this only ends a hang."""


def stubborn_config() -> ServerConfig:
    script = Path(stubborn_server.__file__)
    return ServerConfig(name="stubborn", transport=TransportKind.STDIO, command=sys.executable, args=(str(script),))


@contextmanager
def killing_leftovers() -> Iterator[None]:
    """A failing run may leave the stubborn server (it ignores SIGTERM): kill it so it outlives no test."""
    try:
        yield
    finally:
        for pid in live_children():
            try:
                if b"stubborn_server" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


async def test_an_impatient_stop_during_the_wind_down_still_ends_the_server() -> None:
    connection = ServerConnection(stubborn_config(), EventBus(), policy=FAST_RESTARTS)
    with killing_leftovers():
        connection.start()
        assert (await connection.wait_settled(HANG_GUARD_S)).state is ServerState.READY
        graceful = asyncio.ensure_future(connection.stop(timeout=3600))
        await eventually(lambda: LINGERING in connection.stderr, HANG_GUARD_S, "the server's stdin to close")
        # The SDK is now waiting for the server to exit, then will SIGTERM and SIGKILL it: a second stop
        # with no patience at all cancels the owner right in the middle of that.
        with anyio.fail_after(HANG_GUARD_S):
            await connection.stop(timeout=0)
            await graceful
        assert not connection.running
        assert connection.status.state is ServerState.STOPPED
        await eventually(lambda: live_children() == [], HANG_GUARD_S, "no child process")


async def test_a_stop_that_outlasts_its_patience_ends_a_server_that_will_not_leave() -> None:
    connection = ServerConnection(stubborn_config(), EventBus(), policy=FAST_RESTARTS)
    with killing_leftovers():
        connection.start()
        assert (await connection.wait_settled(HANG_GUARD_S)).state is ServerState.READY
        with anyio.fail_after(HANG_GUARD_S):
            await connection.stop(timeout=0)  # the graceful close never has time: the owner is cancelled
        assert not connection.running
        await eventually(lambda: live_children() == [], HANG_GUARD_S, "no child process")


@pytest.mark.own_process  # what is left behind is the subject: the servers' own processes, not forked ones
async def test_quitting_while_one_server_starts_and_another_is_being_added_leaves_none() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    with killing_leftovers():
        host.start([fixture_config("ready"), fixture_config("starting", "--hang-on-start", timeout=3600)])
        await eventually(lambda: host.ready_count() == 1, HANG_GUARD_S, "one ready")
        assert host.connection("starting").status.state is ServerState.STARTING
        # A change being applied (an install finishing) as the app quits: its new server must not start.
        applying = asyncio.ensure_future(
            host.apply([fixture_config("ready"), fixture_config("starting", "--hang-on-start"), fixture_config("new")])
        )
        with anyio.fail_after(HANG_GUARD_S):
            await host.quit()
            await applying
            await host.restart("ready")  # nothing starts a server again once quitting
        assert not any(c.running for c in host.connections.values())
        assert {c.status.state for c in host.connections.values()} <= {ServerState.STOPPED}
        await eventually(lambda: live_children() == [], HANG_GUARD_S, "no child process")


async def test_a_cancelled_stop_is_cancelled_not_swallowed() -> None:
    """Stopping a server inside a task that is itself cancelled (quitting ends it) ends that task too."""
    connection = ServerConnection(stubborn_config(), EventBus(), policy=FAST_RESTARTS)
    with killing_leftovers():
        connection.start()
        assert (await connection.wait_settled(HANG_GUARD_S)).state is ServerState.READY
        stopping = asyncio.ensure_future(connection.stop(timeout=3600))
        await eventually(lambda: LINGERING in connection.stderr, HANG_GUARD_S, "the server's stdin to close")
        stopping.cancel()
        with anyio.fail_after(HANG_GUARD_S):
            await asyncio.wait({stopping})
        assert stopping.cancelled()
        with anyio.fail_after(HANG_GUARD_S):
            await connection.stop(timeout=0)
        assert not connection.running
        await eventually(lambda: live_children() == [], HANG_GUARD_S, "no child process")
