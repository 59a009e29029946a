"""Opening a server's transport, with its stderr captured and its streams watched.

Every transport's streams are wrapped (`watched_streams`) so the owning task learns of a death
the moment the server's stdout (or HTTP stream) ends, and a stdio server's stdout is decoded
leniently (`lenient_utf8`) so one invalid byte cannot end the SDK's reader. A remote entry
installed from a Server Card of a domain on the network is connected through a guarded client
(`network_guard`): its host is resolved on every connection and only public addresses are reached,
so a name that now points into this computer or the local network is refused. A stdio entry with
`sandboxEnabled` runs inside bubblewrap, else confined by Landlock (`sandbox`), or not at all; when its
entry lists `allowedDomains` it reaches them through a filtering proxy that lives as long as its transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2
import mcp.client.stdio as sdk_stdio
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

from desktop_app.core.lenient_utf8 import CODEC_NAME as LENIENT_UTF8
from desktop_app.core.lenient_utf8 import reporting_bad_bytes
from desktop_app.core.network_guard import (
    GuardedTransport,
    Resolver,
    is_loopback_host,
    public_addresses,
    system_resolver,
)
from desktop_app.core.paths import private_dir
from desktop_app.core.process_exit import ended_by_us, keeping_processes
from desktop_app.core.sandbox.bubblewrap import bubblewrap_command, default_layout
from desktop_app.core.sandbox.landlock_rules import landlock_command, private_temp_parent
from desktop_app.core.sandbox.probe import LANDLOCK, SandboxSupport, system_support
from desktop_app.core.sandbox.proxy import Reach, serving_proxy
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_priority import lower_inner_session, lower_priority
from desktop_app.core.tls import tls_context
from desktop_app.core.watched_streams import TransportHooks, watch

# The SDK waits 2 s for a server to exit after stdin closes, then 2 s more after SIGTERM.
# Quitting the app must take under 2 s in all, so a server gets a shorter grace period.
sdk_stdio.PROCESS_TERMINATION_TIMEOUT = 0.8
sdk_stdio.FORCE_KILL_TIMEOUT = 0.4

STDERR_DRAIN_S = 0.5


def _pump_stderr(fd: int, loop: asyncio.AbstractEventLoop, on_line: Callable[[str], None], done: asyncio.Event) -> None:
    """Read a child's stderr pipe in a thread (works under any event loop, Qt's included);
    `done` is set once every line has been handed to the loop."""
    buffer = b""
    try:
        while chunk := os.read(fd, 65536):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                loop.call_soon_threadsafe(on_line, line.decode("utf-8", "replace").rstrip("\r"))
        if buffer:
            loop.call_soon_threadsafe(on_line, buffer.decode("utf-8", "replace"))
    except (OSError, RuntimeError):
        pass  # the pipe or the loop closed under us: nothing left to report
    finally:
        os.close(fd)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(done.set)


SandboxProbe = Callable[[], SandboxSupport]
"""What this system can confine a server with (`sandbox.probe.system_support`: asked once, then kept)."""


async def _launch(
    config: ServerConfig, sandbox: SandboxProbe, proxy_socket: str | None, stack: contextlib.AsyncExitStack
) -> tuple[str, list[str], bool]:
    """The program and arguments that start the server, and whether it runs in a session of its own inside:
    for a sandboxed entry, inside the best tier that works here (or `SandboxUnavailable`, never unconfined),
    reaching its proxy at `proxy_socket` when it has one. A Landlock-confined server's private temporary
    folder is removed with `stack`."""
    if not config.command:
        raise ValueError(f"server '{config.name}' has no command")
    if not config.sandbox_enabled:
        return config.command, list(config.args), False
    support = (await asyncio.to_thread(sandbox)).require(config.name)
    layout = default_layout()
    private_dir(layout.caches)
    settings = config.sandbox or SandboxSettings()
    roots = config.roots or ()
    if support.tier == LANDLOCK:
        temp_dir = tempfile.mkdtemp(dir=private_temp_parent(layout, config.name))
        stack.callback(shutil.rmtree, temp_dir, ignore_errors=True)
        argv = await asyncio.to_thread(
            functools.partial(
                landlock_command,
                config.command,
                config.args,
                server=config.name,
                settings=settings,
                roots=roots,
                layout=layout,
                temp_dir=temp_dir,
                proxy_socket=proxy_socket,
                cwd=config.cwd,
            )
        )
        return argv[0], argv[1:], False
    assert support.program is not None
    argv = bubblewrap_command(
        support.program,
        config.command,
        config.args,
        server=config.name,
        settings=settings,
        roots=roots,
        cwd=config.cwd,
        layout=layout,
        proxy_socket=proxy_socket,
    )
    return argv[0], argv[1:], True  # bubblewrap opens a session inside (`--new-session`)


async def _proxy_for(
    config: ServerConfig, hooks: TransportHooks, reach: Reach, stack: contextlib.AsyncExitStack
) -> str | None:
    """The filtering proxy's socket for a sandboxed entry that lists hosts (closed with `stack`), else None.
    Its refusals reach the server's log through the stderr hook, the one line a transport can add there."""
    settings = config.sandbox
    if not config.sandbox_enabled or settings is None or not settings.allowed_domains:
        return None
    return await stack.enter_async_context(serving_proxy(settings, hooks.note, reach))


@contextlib.asynccontextmanager
async def _stdio(
    config: ServerConfig, hooks: TransportHooks, sandbox: SandboxProbe, reach: Reach
) -> AsyncIterator[Any]:
    async with contextlib.AsyncExitStack() as proxy_stack:
        proxy_socket = await _proxy_for(config, hooks, reach, proxy_stack)
        command, args, inner_session = await _launch(config, sandbox, proxy_socket, proxy_stack)
        async with _stdio_process(config, hooks, command, args, inner_session=inner_session) as streams:
            yield streams


@contextlib.asynccontextmanager
async def _stdio_process(
    config: ServerConfig, hooks: TransportHooks, command: str, args: list[str], *, inner_session: bool = False
) -> AsyncIterator[Any]:
    params = StdioServerParameters(
        command=command,
        args=args,
        env=dict(config.env) or None,
        cwd=config.cwd,
        encoding=LENIENT_UTF8,
        encoding_error_handler="replace",
    )
    read_fd, write_fd = os.pipe()
    errlog = os.fdopen(write_fd, "w")
    pumping = False
    pumped = asyncio.Event()
    spawned: list[Any] = []
    try:
        async with contextlib.AsyncExitStack() as stack:
            # The SDK spawns the server, and starts its stdout reader, on entering.
            with keeping_processes() as spawned, reporting_bad_bytes(hooks.on_bad_bytes):
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
            if spawned:
                lower_priority(spawned[0].pid)
                if inner_session:
                    lower_inner_session(spawned[0].pid)
            errlog.close()  # the child holds its own copy; ours would keep the pipe open forever
            thread = threading.Thread(
                target=_pump_stderr,
                args=(read_fd, asyncio.get_running_loop(), hooks.on_stderr, pumped),
                name=f"stderr:{config.name}",
                daemon=True,
            )
            thread.start()
            pumping = True
            yield watch(read, write, hooks)
    finally:
        errlog.close()
        if not pumping:
            os.close(read_fd)
        # An exit the SDK caused (the server outlived its pipes) says nothing about the server.
        if spawned and not ended_by_us(spawned[0]) and spawned[0].returncode is not None:
            await _last_stderr_lines(pumped)
            hooks.on_exit(spawned[0].returncode)


async def _last_stderr_lines(pumped: asyncio.Event) -> None:
    """A server that exits often says why on stderr just before: let those lines arrive first
    (briefly: a process it left behind may hold the pipe open; never while being cancelled)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pumped.wait(), STDERR_DRAIN_S)


def from_public_domain(origin: Mapping[str, str]) -> bool:
    """The entry was installed from a Server Card of a domain that is not this computer (`discovery/origin`
    writes `domain` and `package: remote`): the address that domain named is resolved before each connection."""
    domain = origin.get("domain")
    if not domain or origin.get("package") != "remote":
        return False
    return not is_loopback_host(urlsplit(f"//{domain}").hostname or "")


async def _check_address(config: ServerConfig, resolve: Resolver) -> None:
    """Refuse at once, with the reason, an entry whose public domain's address now points inside: the
    guarded client refuses it too (and every later connection), but the SDK reports that only as a
    closed connection."""
    if not from_public_domain(config.origin) or not config.url:
        return
    parts = urlsplit(config.url)
    await public_addresses(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80), resolve)


def _client_factory(config: ServerConfig, resolve: Resolver) -> Callable[..., httpx2.AsyncClient]:
    """The SDK's HTTP client (`create_mcp_http_client`: its timeouts when none is given) on the app's one TLS
    context; for an entry from a public domain's card, one that resolves and refuses private addresses on
    every connection (and takes no proxy from the environment: a proxy resolves names itself, out of reach
    of the check)."""
    public = from_public_domain(config.origin)

    def client(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        timeout = timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
        if public:
            transport = GuardedTransport(resolve)
            return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, transport=transport, trust_env=False)
        return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, verify=tls_context())

    return client


@contextlib.asynccontextmanager
async def _http(config: ServerConfig, hooks: TransportHooks, resolve: Resolver) -> AsyncIterator[Any]:
    if not config.url:
        raise ValueError(f"server '{config.name}' has no url")
    timeout = httpx2.Timeout(config.timeout, read=300.0)
    await _check_address(config, resolve)
    client = _client_factory(config, resolve)
    async with (
        client(headers=dict(config.headers) or None, timeout=timeout, auth=hooks.auth) as http,
        streamable_http_client(config.url, http_client=http) as (read, write),
    ):
        yield watch(read, write, hooks)


@contextlib.asynccontextmanager
async def _sse(config: ServerConfig, hooks: TransportHooks, resolve: Resolver) -> AsyncIterator[Any]:
    if not config.url:
        raise ValueError(f"server '{config.name}' has no url")
    await _check_address(config, resolve)
    async with sse_client(
        config.url,
        headers=dict(config.headers) or None,
        timeout=config.timeout,
        auth=hooks.auth,
        httpx_client_factory=_client_factory(config, resolve),
    ) as (read, write):
        yield watch(read, write, hooks)


def open_transport(
    config: ServerConfig,
    hooks: TransportHooks,
    resolve: Resolver = system_resolver,
    sandbox: SandboxProbe = system_support,
    reach: Reach | None = None,
) -> contextlib.AbstractAsyncContextManager[Any]:
    """The transport for a resolved (placeholder-free) server config; `resolve` answers a guarded client's lookups,
    `sandbox` says how a sandboxed entry is confined here, `reach` how its proxy resolves and judges the hosts it
    lists (by default with `resolve`, public addresses only)."""
    if config.transport is TransportKind.STDIO:
        return _stdio(config, hooks, sandbox, reach or Reach(resolve))
    if config.transport is TransportKind.SSE:
        return _sse(config, hooks, resolve)
    return _http(config, hooks, resolve)
