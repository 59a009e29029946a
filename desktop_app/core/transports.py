"""Opening a server's transport, with its stderr captured and its streams watched.

Every transport's streams are wrapped (`watched_streams`) so the owning task learns of a death
the moment the server's stdout (or HTTP stream) ends, and a stdio server's stdout is decoded
leniently (`lenient_utf8`) so one invalid byte cannot end the SDK's reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import mcp.client.stdio as sdk_stdio
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from desktop_app.core.lenient_utf8 import CODEC_NAME as LENIENT_UTF8
from desktop_app.core.lenient_utf8 import reporting_bad_bytes
from desktop_app.core.process_exit import ended_by_us, keeping_processes
from desktop_app.core.server_config import ServerConfig, TransportKind
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


@contextlib.asynccontextmanager
async def _stdio(config: ServerConfig, hooks: TransportHooks) -> AsyncIterator[Any]:
    if not config.command:
        raise ValueError(f"server '{config.name}' has no command")
    params = StdioServerParameters(
        command=config.command,
        args=list(config.args),
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


@contextlib.asynccontextmanager
async def _http(config: ServerConfig, hooks: TransportHooks) -> AsyncIterator[Any]:
    if not config.url:
        raise ValueError(f"server '{config.name}' has no url")
    timeout = httpx2.Timeout(config.timeout, read=300.0)
    async with (
        create_mcp_http_client(headers=dict(config.headers) or None, timeout=timeout, auth=hooks.auth) as http,
        streamable_http_client(config.url, http_client=http) as (read, write),
    ):
        yield watch(read, write, hooks)


@contextlib.asynccontextmanager
async def _sse(config: ServerConfig, hooks: TransportHooks) -> AsyncIterator[Any]:
    if not config.url:
        raise ValueError(f"server '{config.name}' has no url")
    async with sse_client(
        config.url, headers=dict(config.headers) or None, timeout=config.timeout, auth=hooks.auth
    ) as (read, write):
        yield watch(read, write, hooks)


def open_transport(config: ServerConfig, hooks: TransportHooks) -> contextlib.AbstractAsyncContextManager[Any]:
    """The transport for a resolved (placeholder-free) server config."""
    if config.transport is TransportKind.STDIO:
        return _stdio(config, hooks)
    if config.transport is TransportKind.SSE:
        return _sse(config, hooks)
    return _http(config, hooks)
