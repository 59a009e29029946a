"""Servers that break the transport: bytes that are not UTF-8, a stream that ends under a live
process, answers nobody asked for, and a stop that must not wait for a listing."""

from __future__ import annotations

import anyio
import pytest

from desktop_app.core.events import ServerStateChanged
from desktop_app.core.host import ServerHost
from desktop_app.core.server_status import ServerState
from tests.hosting import FAST_RESTARTS, eventually, fixture_config, live_children, serving_configs

pytestmark = pytest.mark.anyio


def _notes(host: ServerHost, name: str, text: str) -> list[str]:
    return [entry.text for entry in host.connection(name).log if text in entry.text]


@pytest.mark.stdio
async def test_bytes_that_are_not_utf8_after_a_tool_leave_the_connection_working() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    host.start([fixture_config("fx", timeout=30)])  # without the fix, the echo below times out
    try:
        await host.wait_settled(60)
        connection = host.connection("fx")
        for _ in range(2):
            result = await connection.call_tool("bad_bytes", {})
            assert "not UTF-8" in str(result.content[0])
        echoed = await connection.call_tool("echo", {"text": "still here"})
        assert "still here" in str(echoed.content[0])
        assert connection.status.state is ServerState.READY
        [note] = _notes(host, "fx", "not UTF-8")  # once, however often it happens
        assert "(ff fe 80)" in note
        # Each garbled line is reported once, as the line it was.
        assert len(_notes(host, "fx", "not valid JSON-RPC: '\ufffd'")) == 2
    finally:
        await host.stop_all()


async def test_bytes_that_are_not_utf8_at_start_up_do_not_wait_for_the_timeout() -> None:
    # The handshake may take an hour: ready within a minute means the bad bytes were read past.
    async with serving_configs(fixture_config("fx", "--bad-bytes-on-start", timeout=3600), settle=60) as host:
        assert host.connection("fx").status.state is ServerState.READY
        assert len(_notes(host, "fx", "(ff fe 80)")) == 1


@pytest.mark.stdio
async def test_a_stream_that_ends_under_a_live_server_marks_the_connection_dead_at_once() -> None:
    async with serving_configs(fixture_config("fx", timeout=30), settle=60) as host:
        connection = host.connection("fx")
        states: list[tuple[ServerState, str | None]] = []
        host.bus.subscribe(ServerStateChanged, lambda e: states.append((e.status.state, e.status.reason)))
        await connection.call_tool("close_stdout_soon", {})
        # No request is made: the owner learns from the stream alone, long before any timeout.
        await eventually(lambda: bool(states), timeout=10, what="the connection to be marked dead")
        state, reason = states[0]
        assert state is ServerState.RESTARTING
        # Closing the stream ends it, or its exit once stopped says how it ended.
        assert reason == "the server closed the connection" or (reason or "").startswith("the server exited")
        await eventually(lambda: connection.status.state is ServerState.READY, timeout=20, what="a restart")


async def test_a_response_before_the_handshake_is_named_as_what_happened() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    host.start([fixture_config("fx", "--unsolicited-response", "1")])
    try:
        await eventually(lambda: host.connection("fx").status.state is ServerState.FAILED, timeout=60)
        reason = host.connection("fx").status.reason or ""
        assert "the server sent a response to a request it was never sent (id 1) before the handshake" in reason
        assert "-32022" not in reason and "handshake is not accepted" not in reason
    finally:
        await host.stop_all()


async def test_a_response_to_no_request_is_ignored_with_a_note() -> None:
    async with serving_configs(fixture_config("fx", "--unsolicited-response", "99"), settle=60) as host:
        assert host.connection("fx").status.state is ServerState.READY
        assert _notes(host, "fx", "never sent or was already answered (id 99)")


@pytest.mark.stdio
async def test_stopping_does_not_wait_for_a_listing_in_flight() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    # Each page of the re-listing takes an hour to serve: the stop must not wait for one.
    big = fixture_config(
        "big", "--pages", "10", "--per-page", "1000", "--slow-relist", "3600", protocol="legacy", timeout=3600
    )
    host.start([big, *(fixture_config(f"fx{i}") for i in range(3))])
    try:
        await host.wait_settled(60)
        assert len(host.catalog.servers["big"].resources) == 10_000
        connection = host.connection("big")
        await connection.call_tool("announce_change", {})
        await eventually(lambda: any("slowly" in line for line in connection.stderr), what="a re-listing")
    finally:
        # Each stop may take an hour before it is cut short: ending within a minute, it waited for no
        # page. (How fast quitting is belongs to bench/, not to a timed assertion.)
        with anyio.fail_after(60):
            await host.stop_all(timeout=3600)
    assert all(c.status.state is ServerState.STOPPED for c in host.connections.values())
    await eventually(lambda: live_children() == [], timeout=60, what="no child processes")
