"""The host against real servers: in-process, stdio, HTTP; healthy and misbehaving."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import replace

import anyio
import pytest

from desktop_app.core.events import (
    CatalogChanged,
    EventBus,
    LogLine,
    ResourceUpdated,
    ServerRemoved,
    ServerStateChanged,
)
from desktop_app.core.host import ServerHost, UnknownResourceError
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError
from desktop_app.core.server_status import ServerState
from desktop_app.core.trust import ServerTrust
from desktop_app.demo_server import build_server
from tests.hosting import (
    FAST_RESTARTS,
    eventually,
    fixture_config,
    inprocess_config,
    live_children,
    serving,
    serving_configs,
)
from tests.servers.everything import everything_stdio_params, run_everything_http, run_fixture_http
from tests.servers.fixture_server import LONG_END_MARKER, STARTUP_LINE, build_fixture_server

pytestmark = pytest.mark.anyio


def on_progress(started: asyncio.Event) -> Callable[[float, float | None, str | None], Awaitable[None]]:
    """A progress callback that marks the call as begun on the server (its handler reports at once)."""

    async def progress(_done: float, _total: float | None, _message: str | None) -> None:
        started.set()

    return progress


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_inprocess_catalog_and_reads(protocol: str) -> None:
    async with serving({"fx": build_fixture_server()}, inprocess_config("fx", protocol=protocol)) as host:
        connection = host.connection("fx")
        assert connection.status.state is ServerState.READY
        catalog = host.catalog.servers["fx"]
        uris = {r.uri for r in catalog.resources}
        assert {"fixture://long", "fixture://doc.pdf", "fixture://image.png"} <= uris
        assert [t.uri_template for t in catalog.templates] == ["fixture://items/{item_id}"]
        assert {p.name for p in catalog.prompts} == {"greet", "review"}
        assert catalog.instructions == "A test fixture for MCP Desk."
        assert host.catalog.owner_of("fixture://long") == "fx"
        # A server tool named like the client's synthetic tool is namespaced, never shadowing it.
        exposed = {t.exposed_name: t.tool.name for t in host.catalog.tools()}
        assert "read_resource" not in exposed
        assert exposed["fx__read_resource"] == "read_resource"
        assert host.catalog.tool("fx__read_resource") is not None

        [long] = await host.read_resource("fixture://long")
        assert long.text is not None and long.text.endswith(LONG_END_MARKER)
        [pdf] = await host.read_resource("fixture://doc.pdf")
        assert pdf.is_binary and pdf.data is not None and pdf.data.startswith(b"%PDF-")
        with pytest.raises(UnknownResourceError):
            await host.read_resource("fixture://nope")
    assert host.connection("fx").status.state is ServerState.STOPPED


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_list_changed_relists_the_catalog(protocol: str) -> None:
    bus = EventBus()
    changes: list[CatalogChanged] = []
    bus.subscribe(CatalogChanged, changes.append)
    async with serving({"fx": build_fixture_server()}, inprocess_config("fx", protocol=protocol), bus=bus) as host:
        before = len(changes)
        listed = host.connection("fx").catalog
        assert listed is not None
        result = await host.connection("fx").call_tool("notify_change", {})
        assert not result.is_error
        await eventually(lambda: host.catalog.owner_of("fixture://added/1") == "fx", what="re-list")
        assert len(changes) > before
        relisted = host.connection("fx").catalog
        assert relisted is not None and relisted.tools is listed.tools, "only what changed is listed again"


@pytest.mark.stdio
async def test_stdio_server_captures_stderr_and_logs() -> None:
    async with serving_configs(fixture_config("fx", protocol="legacy"), settle=20) as host:
        connection = host.connection("fx")
        assert connection.status.state is ServerState.READY
        await eventually(lambda: STARTUP_LINE in connection.stderr, what="stderr line")
        await connection.call_tool("log", {"message": "hello from the tool"})
        await eventually(
            lambda: any(e.source == "server" and "hello from the tool" in e.text for e in connection.log),
            what="server log line",
        )
        result = await connection.call_tool("add", {"a": 2, "b": 3})
        assert "5" in str(result.content[0])


@pytest.mark.stdio
async def test_crash_mid_call_fails_fast_and_restarts() -> None:
    bus = EventBus()
    states: list[ServerState] = []
    bus.subscribe(ServerStateChanged, lambda e: states.append(e.status.state))
    async with serving_configs(fixture_config("fx", timeout=3600), settle=20, bus=bus) as host:
        connection = host.connection("fx")
        # Closed, not timed out: the call fails from the death itself (its timeout is an hour).
        with anyio.fail_after(60), pytest.raises(ServerUnavailableError, match="closed the connection"):
            await connection.call_tool("crash", {})
        await eventually(lambda: ServerState.RESTARTING in states, what="restarting state")
        await eventually(
            lambda: connection.status.state is ServerState.READY and states.count(ServerState.READY) >= 2,
            what="back to ready",
        )
        result = await connection.call_tool("echo", {"text": "alive"})
        assert "alive" in str(result.content[0])


@pytest.mark.stdio
async def test_in_flight_request_fails_at_once_when_the_server_dies() -> None:
    async with serving_configs(fixture_config("fx", timeout=3600), settle=20) as host:
        connection = host.connection("fx")
        started = asyncio.Event()
        slow = asyncio.ensure_future(connection.call_tool("slow", {"seconds": 3600}, on_progress(started)))
        await eventually(started.is_set, timeout=60, what="the slow call running on the server")
        with anyio.fail_after(60):  # neither the handler (an hour) nor the timeout (an hour) ends it
            with pytest.raises(ServerUnavailableError):
                await connection.call_tool("crash", {})
            with pytest.raises(ServerUnavailableError):
                await slow


async def test_request_timeout_is_clear() -> None:
    # In-process, so a busy machine cannot make the handshake itself overrun the short timeout.
    async with serving({"fx": build_fixture_server()}, inprocess_config("fx", timeout=1), settle=20) as host:
        with pytest.raises(ServerRequestTimeout, match=r"did not answer tools/call slow within 1 s"):
            await host.connection("fx").call_tool("slow", {"seconds": 10})
        assert host.connection("fx").status.state is ServerState.READY


async def test_hung_server_times_out_and_gives_up() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    host.start([fixture_config("fx", "--hang-on-start", timeout=0.3)])
    try:
        await eventually(lambda: host.connection("fx").status.state is ServerState.FAILED, timeout=30)
        status = host.connection("fx").status
        assert status.reason is not None
        assert "gave up after 3 restart attempts" in status.reason
        assert "no answer to the MCP handshake within 0.3 s" in status.reason
    finally:
        await host.stop_all()
    assert live_children() == []


async def test_garbage_on_stdout_is_logged_not_fatal() -> None:
    async with serving_configs(fixture_config("fx", "--garbage"), settle=20) as host:
        connection = host.connection("fx")
        assert connection.status.state is ServerState.READY
        assert any("not valid JSON-RPC" in e.text for e in connection.log)
        [text] = await host.read_resource("fixture://data.json")
        assert text.text is not None and text.text.startswith("{")


async def test_missing_command_fails_clearly_without_retrying() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    config = ServerConfig(name="ghost", transport=TransportKind.STDIO, command="/nonexistent/mcp-server-xyz")
    host.start([config])
    try:
        status = await host.connection("ghost").wait_settled(10)
        assert status.state is ServerState.FAILED
        assert status.reason == "command not found: /nonexistent/mcp-server-xyz"
    finally:
        await host.stop_all()


async def test_removing_a_failed_server_announces_it() -> None:
    bus = EventBus()
    removed: list[str] = []
    bus.subscribe(ServerRemoved, lambda e: removed.append(e.server))
    host = ServerHost(bus, policy=FAST_RESTARTS)
    ghost = ServerConfig(name="ghost", transport=TransportKind.STDIO, command="/nonexistent/mcp-server-xyz")
    host.start([ghost])
    try:
        assert (await host.connection("ghost").wait_settled(10)).state is ServerState.FAILED
        # Renamed, then removed: each old name is announced once, whatever state it was in.
        await host.apply([replace(ghost, name="renamed")])
        assert removed == ["ghost"] and list(host.connections) == ["renamed"]
        await host.wait_settled(10)
        await host.apply([])
        assert removed == ["ghost", "renamed"] and not host.connections
    finally:
        await host.stop_all()


async def test_server_exiting_at_once_reports_stderr_then_gives_up() -> None:
    # One restart shows the give-up path; each attempt starts a Python process, slow on a loaded machine.
    host = ServerHost(policy=RestartPolicy(first_delay=0.05, max_attempts=1))
    host.start([fixture_config("fx", "--exit-immediately", "7")])
    try:
        await eventually(lambda: host.connection("fx").status.state is ServerState.FAILED, timeout=60)
        status = host.connection("fx").status
        assert "gave up" in (status.reason or "")
        assert any("exiting immediately with code 7" in line for line in status.stderr_tail)
    finally:
        await host.stop_all()


async def test_a_server_that_exits_says_how_and_what_it_printed_redacted() -> None:
    secret = "s3cr3t-value-that-must-not-leak"

    class Secrets:
        def get(self, name: str) -> str | None:
            return secret if name == "TOKEN" else None

    host = ServerHost(secrets=Secrets(), policy=RestartPolicy(max_attempts=0))
    env = {"FIXTURE_TOKEN": "${secret:TOKEN}"}
    host.start([fixture_config("fx", "--secret-echo", "--exit-immediately", "3", env=env)])
    try:
        status = await host.connection("fx").wait_settled(30)
        assert status.state is ServerState.FAILED
        assert status.reason == "the server exited with code 3"
        assert status.last_stderr() == (
            STARTUP_LINE,
            "FIXTURE_TOKEN=***",
            "fixture server: exiting immediately with code 3",
        )
        assert status.explained().splitlines()[0] == "failed: the server exited with code 3"
    finally:
        await host.stop_all()


@pytest.mark.stdio
async def test_a_killed_server_says_it_was_killed() -> None:
    host = ServerHost(policy=RestartPolicy(first_delay=30, max_attempts=1))
    host.start([fixture_config("fx")])
    try:
        await host.wait_settled(30)
        [pid] = live_children()
        os.kill(pid, signal.SIGKILL)
        connection = host.connection("fx")
        await eventually(lambda: connection.status.state is ServerState.RESTARTING, timeout=15, what="restarting")
        assert connection.status.reason == "the server was ended by SIGKILL"
    finally:
        await host.stop_all()


async def test_secrets_are_resolved_and_redacted() -> None:
    secret = "s3cr3t-value-that-must-not-leak"

    class Secrets:
        def get(self, name: str) -> str | None:
            return secret if name == "TOKEN" else None

    host = ServerHost(secrets=Secrets(), policy=FAST_RESTARTS)
    host.start([fixture_config("fx", "--secret-echo", env={"FIXTURE_TOKEN": "${secret:TOKEN}"})])
    try:
        await host.wait_settled(20)
        connection = host.connection("fx")
        await eventually(lambda: any("FIXTURE_TOKEN=" in line for line in connection.stderr), what="echo")
        echoed = next(line for line in connection.stderr if "FIXTURE_TOKEN=" in line)
        assert echoed == "FIXTURE_TOKEN=***"
        assert all(secret not in entry.text for entry in connection.log)
        assert secret not in repr(connection.config)
    finally:
        await host.stop_all()


async def test_missing_secret_fails_without_starting() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    host.start([fixture_config("fx", env={"FIXTURE_TOKEN": "${secret:ABSENT}"})])
    try:
        status = await host.connection("fx").wait_settled(10)
        assert status.state is ServerState.FAILED
        assert "ABSENT" in (status.reason or "")
    finally:
        await host.stop_all()


async def test_paginated_server_lists_every_page() -> None:
    async with serving_configs(fixture_config("pages", "--pages", "4", "--per-page", "25"), settle=20) as host:
        catalog = host.catalog.servers["pages"]
        assert len(catalog.resources) == 100
        assert len({r.uri for r in catalog.resources}) == 100


@pytest.mark.stdio
async def test_stop_all_waits_for_no_call_or_handshake_and_leaves_no_child() -> None:
    host = ServerHost(policy=FAST_RESTARTS)
    hung = fixture_config("hung", "--hang-on-start", timeout=3600)
    host.start([fixture_config(f"fx{i}", timeout=3600) for i in range(4)] + [hung])
    try:
        await eventually(lambda: host.ready_count() == 4, timeout=60, what="four ready")
        started = asyncio.Event()
        busy = asyncio.ensure_future(host.connection("fx0").call_tool("slow", {"seconds": 3600}, on_progress(started)))
        await eventually(started.is_set, timeout=60, what="the slow call running on the server")
        assert len(live_children()) == 5
    finally:
        # Allowed an hour each, the stops end only if none waits for the hour-long call or handshake.
        # (How fast quitting is, with its 1.8 s bound, is for bench/, not for a timed assertion.)
        with anyio.fail_after(60):
            await host.stop_all(timeout=3600)
    with pytest.raises(ServerUnavailableError):
        await busy
    assert all(c.status.state is ServerState.STOPPED for c in host.connections.values())
    await eventually(lambda: live_children() == [], timeout=60, what="no child processes")


async def test_disable_enable_and_restart() -> None:
    async with serving_configs(fixture_config("fx"), settle=20) as host:
        await host.set_enabled("fx", False)
        assert host.connection("fx").status.state is ServerState.DISABLED
        assert "fx" not in host.catalog.servers
        await host.set_enabled("fx", True)
        await host.wait_settled(20)
        assert host.connection("fx").status.state is ServerState.READY
        await host.restart("fx")
        await host.wait_settled(20)
        assert host.ready_count() == 1
        await host.apply([fixture_config("other")])
        await host.wait_settled(20)
        assert list(host.connections) == ["other"]


async def test_changing_only_trust_keeps_the_connection() -> None:
    async with serving({"fx": build_fixture_server()}) as host:
        assert host.trust("fx") == ServerTrust() and host.trust("ghost") == ServerTrust()
        states: list[ServerState] = []
        host.bus.subscribe(ServerStateChanged, lambda e: states.append(e.status.state))
        trusted = replace(inprocess_config("fx"), trusted=True, auto_approve_read_only=True)
        await host.apply([trusted])
        assert states == [] and host.connection("fx").config == trusted
        assert host.trust("fx") == ServerTrust(trusted=True, auto_approve_read_only=True)
        # The read-only setting only counts while the server is trusted.
        await host.apply([replace(trusted, trusted=False)])
        assert host.trust("fx") == ServerTrust() and states == []


async def test_everything_over_stdio_with_subscription_and_logs() -> None:
    params = everything_stdio_params()
    config = ServerConfig(
        name="everything", transport=TransportKind.STDIO, command=params.command, args=tuple(params.args)
    )
    bus = EventBus()
    updates: list[ResourceUpdated] = []
    logs: list[LogLine] = []
    bus.subscribe(ResourceUpdated, updates.append)
    bus.subscribe(LogLine, logs.append)
    async with serving_configs(config, settle=30, bus=bus) as host:
        connection = host.connection("everything")
        assert connection.status.state is ServerState.READY
        assert connection.status.protocol_version == "2025-11-25"
        catalog = host.catalog.servers["everything"]
        assert len(catalog.resources) == 7
        assert {p.name for p in catalog.prompts} >= {"simple-prompt", "args-prompt", "completable-prompt"}
        assert len(catalog.tools) >= 13
        uri = catalog.resources[0].uri
        await connection.subscribe(uri)
        await connection.call_tool("toggle-subscriber-updates", {})
        await eventually(lambda: any(u.uri == uri for u in updates), what="resources/updated")
        await connection.call_tool("toggle-simulated-logging", {})
        await eventually(lambda: any(e.entry.source == "server" for e in logs), what="a server log line")


async def test_everything_over_http_on_loopback() -> None:
    async with (
        run_everything_http() as url,
        serving_configs(ServerConfig(name="web", transport=TransportKind.HTTP, url=url), settle=30) as host,
    ):
        assert host.connection("web").status.state is ServerState.READY
        assert len(host.catalog.servers["web"].resources) == 7
        contents = await host.read_resource(host.catalog.servers["web"].resources[0].uri)
        assert contents and contents[0].text


async def test_fixture_over_sse_and_http(tls_builds: list[bool]) -> None:
    async with run_fixture_http(sse=True) as sse_url, run_fixture_http() as http_url:
        host = ServerHost(policy=FAST_RESTARTS)
        host.start(
            [
                ServerConfig(name="sse", transport=TransportKind.SSE, url=sse_url),
                ServerConfig(name="http", transport=TransportKind.HTTP, url=http_url),
            ]
        )
        try:
            await host.wait_settled(30)
            assert host.ready_count() == 2
            [sse_long] = await host.read_resource("fixture://long", server="sse")
            [http_long] = await host.read_resource("fixture://long", server="http")
            assert sse_long.text == http_long.text
            assert sse_long.text is not None and sse_long.text.endswith(LONG_END_MARKER)
            assert tls_builds == [True]  # one TLS context for both clients (each would load the CA store)
        finally:
            await host.stop_all()


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_resource_updated_reaches_subscribers_in_both_eras(protocol: str) -> None:
    bus = EventBus()
    updates: list[ResourceUpdated] = []
    bus.subscribe(ResourceUpdated, updates.append)
    async with serving({"demo": build_server()}, inprocess_config("demo", protocol=protocol), bus=bus) as host:
        connection = host.connection("demo")
        await connection.subscribe("demo://notes-log")
        # A modern connection re-opens its listen stream in the background, with no sign when it is
        # open: a note added before then changes the log unseen, so notes are added until one is seen.
        for note in range(1, 60):
            await connection.call_tool("add_note", {"title": f"t{note}", "text": f"body {note}"})
            with contextlib.suppress(AssertionError):
                await eventually(lambda: any(u.uri == "demo://notes-log" for u in updates), timeout=1)
                break
        else:
            raise AssertionError("no resources/updated for demo://notes-log")
        [log] = await host.read_resource("demo://notes-log")
        assert log.text is not None and f"body {note}" in log.text


@pytest.mark.stdio
async def test_backoff_resets_after_a_healthy_spell() -> None:
    bus = EventBus()
    attempts: list[int] = []
    bus.subscribe(
        ServerStateChanged,
        lambda e: attempts.append(e.status.attempt) if e.status.state is ServerState.RESTARTING else None,
    )
    policy = RestartPolicy(first_delay=0.05, max_delay=0.2, max_attempts=3, healthy_after=0.3)
    host = ServerHost(bus, policy=policy)
    host.start([fixture_config("fx")])
    try:
        for _ in range(2):
            await host.wait_settled(20)
            await asyncio.sleep(0.4)  # healthy longer than `healthy_after`
            with pytest.raises(ServerUnavailableError):
                await host.connection("fx").call_tool("crash", {})
            await eventually(lambda: host.connection("fx").status.state is not ServerState.READY)
        await host.wait_settled(20)
        assert attempts == [1, 1]
    finally:
        await host.stop_all()


def test_restart_policy_doubles_to_a_minute() -> None:
    policy = RestartPolicy()
    assert [policy.delay(n) for n in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert policy.max_attempts == 8


async def test_server_without_templates_still_connects() -> None:
    from mcp.server import Server
    from mcp_types import ListResourcesResult, Resource

    async def list_resources(ctx: object, params: object) -> ListResourcesResult:
        return ListResourcesResult(resources=[Resource(uri="bare://one", name="one")])

    bare = Server("bare", version="1.0.0", on_list_resources=list_resources)
    async with serving({"bare": bare}, inprocess_config("bare", protocol="legacy")) as host:
        assert host.connection("bare").status.state is ServerState.READY
        assert host.catalog.owner_of("bare://one") == "bare"
        assert host.catalog.servers["bare"].templates == ()
