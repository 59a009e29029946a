"""The filtering proxy a sandboxed server reaches the network through: spoken to over its Unix socket, in front
of real HTTP servers on 127.0.0.1 that the test's own resolver names `allowed.test` and `other.test`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
import pytest

from desktop_app.core.sandbox import proxy
from desktop_app.core.sandbox.proxy import MAX_TUNNELS, Reach, refusal, serving_proxy
from desktop_app.core.sandbox.settings import SandboxSettings
from tests.core.sandbox.web_server import LOOPBACK_OK, table, web_server

pytestmark = pytest.mark.anyio


async def ask(socket_path: str, request: bytes) -> bytes:
    reader, writer = await asyncio.open_unix_connection(socket_path)
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


def get(host: str, port: int, path: str = "/") -> bytes:
    head = f"GET http://{host}:{port}{path} HTTP/1.1\r\nHost: {host}:{port}\r\nProxy-Connection: keep-alive\r\n\r\n"
    return head.encode()


def settings(allowed: tuple[str, ...], denied: tuple[str, ...] = ()) -> SandboxSettings:
    return SandboxSettings(allowed_domains=allowed, denied_domains=denied)


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("allowed.test", None),
        ("ALLOWED.test.", None),
        ("api.allowed.test", None),
        ("deep.api.allowed.test", None),
        ("other.test", "not in allowedDomains"),
        ("allowed.test.evil", "not in allowedDomains"),
        ("blocked.allowed.test", "in deniedDomains"),
        ("127.0.0.1", "an IP address not in allowedDomains"),
        ("[::1]", "an IP address not in allowedDomains"),
    ],
)
def test_rules_deny_wins_and_wildcards_match_subdomains(host: str, reason: str | None) -> None:
    rules = settings(("allowed.test", "*.allowed.test"), ("blocked.allowed.test",))
    assert refusal(host, rules) == reason


def test_a_wildcard_does_not_match_the_bare_domain_and_a_listed_address_is_allowed() -> None:
    assert refusal("allowed.test", settings(("*.allowed.test",))) == "not in allowedDomains"
    assert refusal("127.0.0.1", settings(("127.0.0.1",))) is None


class Notes(list[str]):
    """The server's log lines, as `level: text`."""

    def __call__(self, level: str, text: str) -> None:
        self.append(f"{level}: {text}")


@asynccontextmanager
async def proxied(
    allowed: tuple[str, ...], *, denied: tuple[str, ...] = (), reach: Reach = LOOPBACK_OK
) -> AsyncIterator[tuple[str, int, Notes]]:
    """A proxy for these rules, an HTTP server behind it: (socket path, server port, log)."""
    notes = Notes()
    async with AsyncExitStack() as stack:
        port = await stack.enter_async_context(web_server(b"hello"))
        path = await stack.enter_async_context(serving_proxy(settings(allowed, denied), notes, reach))
        yield path, port, notes


async def test_plain_http_to_an_allowed_host_is_relayed_in_origin_form() -> None:
    async with proxied(("allowed.test",)) as (path, port, notes):
        answer = await ask(path, get("allowed.test", port, "/page?q=1"))
    assert answer.startswith(b"HTTP/1.1 200 OK")
    assert answer.endswith(b"hello GET /page?q=1 HTTP/1.1 Host: allowed.test:%d" % port)
    assert notes == []


async def test_the_host_header_names_the_host_that_was_checked() -> None:
    async with proxied(("allowed.test",)) as (path, port, _notes):
        request = f"GET http://allowed.test:{port}/ HTTP/1.1\r\nHost: evil.example\r\n\r\n".encode()
        answer = await ask(path, request)
    assert answer.endswith(b"Host: allowed.test:%d" % port) and b"evil.example" not in answer


async def test_connect_to_an_allowed_host_opens_a_tunnel() -> None:
    async with proxied(("*.allowed.test",)) as (path, port, _notes):
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(f"CONNECT api.allowed.test:{port} HTTP/1.1\r\nHost: api.allowed.test:{port}\r\n\r\n".encode())
        established = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        writer.write(b"GET /inside HTTP/1.1\r\nHost: api.allowed.test\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    assert established.startswith(b"HTTP/1.1 200")
    assert answer.endswith(b"hello GET /inside HTTP/1.1 Host: api.allowed.test")


async def test_a_host_not_listed_is_refused_before_any_lookup_and_logged_once_then_counted() -> None:
    looked_up: list[str] = []

    async def spy(host: str, port: int) -> Sequence[str]:
        looked_up.append(host)
        return await table(host, port)

    async with proxied(("allowed.test",), reach=Reach(spy, LOOPBACK_OK.acceptable)) as (path, port, notes):
        answers = [await ask(path, get("other.test", port)) for _ in range(12)]
    assert all(a.startswith(b"HTTP/1.1 403") and b"other.test is not in allowedDomains" in a for a in answers)
    assert looked_up == []
    refused = [line for line in notes if "other.test" in line]
    assert refused[0] == "warning: sandbox refused a connection to other.test (not in allowedDomains)"
    assert len(refused) == 2 and "10 connections to other.test" in refused[1]


async def test_denied_domains_win_over_allowed_ones() -> None:
    async with proxied(("*.allowed.test",), denied=("blocked.allowed.test",)) as (path, port, notes):
        answer = await ask(path, get("blocked.allowed.test", port))
    assert answer.startswith(b"HTTP/1.1 403") and b"in deniedDomains" in answer
    assert notes == ["warning: sandbox refused a connection to blocked.allowed.test (in deniedDomains)"]


async def test_an_ip_literal_is_refused_unless_listed() -> None:
    async with proxied(("allowed.test",)) as (path, port, notes):
        refused = await ask(path, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
    assert refused.startswith(b"HTTP/1.1 403") and b"an IP address not in allowedDomains" in refused
    assert notes == ["warning: sandbox refused a connection to 127.0.0.1 (an IP address not in allowedDomains)"]
    async with proxied(("127.0.0.1",)) as (path, port, _notes):
        assert (await ask(path, get("127.0.0.1", port))).startswith(b"HTTP/1.1 200")


async def test_a_listed_name_that_resolves_inside_this_computer_is_refused_by_default() -> None:
    async with proxied(("allowed.test",), reach=Reach(table)) as (path, port, notes):
        answer = await ask(path, get("allowed.test", port))
    assert answer.startswith(b"HTTP/1.1 403")
    assert b"allowed.test resolves to 127.0.0.1" in answer
    assert notes == [
        "warning: sandbox refused a connection to allowed.test "
        "(resolves to 127.0.0.1, inside this computer or the local network)"
    ]


async def test_localhost_listed_by_name_may_reach_this_computer() -> None:
    async def local(host: str, _port: int) -> Sequence[str]:
        return ["127.0.0.1"] if host == "localhost" else []

    async with proxied(("localhost",), reach=Reach(local)) as (path, port, _notes):
        assert (await ask(path, get("localhost", port))).startswith(b"HTTP/1.1 200")


async def test_anything_but_connect_or_absolute_http_is_refused() -> None:
    async with proxied(("allowed.test",)) as (path, _port, _notes):
        origin_form = await ask(path, b"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
        other_scheme = await ask(path, b"GET ftp://allowed.test/ HTTP/1.1\r\n\r\n")
    assert origin_form.startswith(b"HTTP/1.1 400") and other_scheme.startswith(b"HTTP/1.1 400")


async def test_tunnels_are_bounded() -> None:
    async with proxied(("allowed.test",)) as (path, port, _notes):
        held = []
        for _ in range(MAX_TUNNELS):
            reader, writer = await asyncio.open_unix_connection(path)
            writer.write(f"CONNECT allowed.test:{port} HTTP/1.1\r\n\r\n".encode())
            assert (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).startswith(b"HTTP/1.1 200")
            held.append(writer)
        answer = await ask(path, get("allowed.test", port))
        for writer in held:
            writer.close()
    assert answer.startswith(b"HTTP/1.1 503")


async def test_closing_the_proxy_ends_its_tunnels_and_removes_its_socket() -> None:
    async with proxied(("allowed.test",)) as (path, port, _notes):
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(f"CONNECT allowed.test:{port} HTTP/1.1\r\n\r\n".encode())
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert await asyncio.wait_for(reader.read(), 10) == b""
    writer.close()
    assert not await anyio.Path(path).exists()


@asynccontextmanager
async def trickle(chunks: int, every: float) -> AsyncIterator[int]:
    """A server that sends `chunks` bytes one at a time, `every` seconds apart, then closes: its port."""

    async def send(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(chunks):
            writer.write(b".")
            await writer.drain()
            await asyncio.sleep(every)  # the pace of the download, not a wait for a condition
        writer.close()

    server = await asyncio.start_server(send, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def tunnel_to(path: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_unix_connection(path)
    writer.write(f"CONNECT allowed.test:{port} HTTP/1.1\r\n\r\n".encode())
    assert (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).startswith(b"HTTP/1.1 200")
    return reader, writer


async def test_an_idle_tunnel_is_closed_but_a_one_way_download_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proxy, "IDLE_TIMEOUT_S", 1.0)
    async with proxied(("allowed.test",)) as (path, _port, _notes), trickle(1, 30) as quiet, trickle(15, 0.1) as busy:
        idle_reader, idle_writer = await tunnel_to(path, quiet)
        busy_reader, busy_writer = await tunnel_to(path, busy)
        assert await asyncio.wait_for(idle_reader.read(), 10) == b"."  # closed after the idle second
        assert await asyncio.wait_for(busy_reader.read(), 10) == b"." * 15  # 1.5 s, nothing sent its way
        idle_writer.close()
        busy_writer.close()
