"""Run the npm reference server `@modelcontextprotocol/server-everything` in tests.

It is installed under `tests/npm/node_modules` by `make test`; node is called on its
`dist/index.js` directly (npx costs ~300 ms per start). Its HTTP mode listens on every
interface, so `run_everything_http` preloads `loopback_preload.cjs`, which rewrites every
TCP `listen` to 127.0.0.1: a test must never expose a server to the network.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

import anyio
from anyio.abc import Process
from mcp.client.stdio import StdioServerParameters

SERVERS_DIR: Final = Path(__file__).resolve().parent
NPM_DIR: Final = SERVERS_DIR.parent / "npm"
EVERYTHING_DIR: Final = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything"
EVERYTHING_ENTRY: Final = EVERYTHING_DIR / "dist" / "index.js"
LOOPBACK_PRELOAD: Final = SERVERS_DIR / "loopback_preload.cjs"
HTTP_PATH: Final = "/mcp"
LOOPBACK: Final = "127.0.0.1"
START_TIMEOUT_S: Final = 90.0
REQUIRE_TEST_SERVERS: Final = "MCP_DESK_REQUIRE_TEST_SERVERS"
"""Set to 1 (as `make test` does) and a missing test server is an error instead of a skip."""


def node_executable() -> str | None:
    return shutil.which("node")


class MissingTestServerError(RuntimeError):
    """`make test` installed the npm test servers, yet one cannot be run: its tests must fail, not skip."""


def everything_available() -> bool:
    """Whether node and the installed server exist: a bare `pytest` without npm skips their tests.

    Under `make test` (`MCP_DESK_REQUIRE_TEST_SERVERS=1`) a missing server raises instead, so the
    tests that need it fail loudly rather than pass as skipped.
    """
    available = node_executable() is not None and EVERYTHING_ENTRY.is_file()
    if not available and os.environ.get(REQUIRE_TEST_SERVERS) == "1":
        missing = "node is not on PATH" if node_executable() is None else f"{EVERYTHING_ENTRY} is missing"
        raise MissingTestServerError(f"server-everything cannot run ({missing}) but {REQUIRE_TEST_SERVERS}=1")
    return available


def _require_node() -> str:
    node = node_executable()
    if node is None:
        raise RuntimeError("node is not on PATH; it is needed to run server-everything")
    if not EVERYTHING_ENTRY.is_file():
        raise RuntimeError(f"server-everything is not installed at {EVERYTHING_ENTRY}; run `make test`")
    return node


def everything_stdio_params(env: dict[str, str] | None = None) -> StdioServerParameters:
    """Launch parameters for server-everything over stdio."""
    return StdioServerParameters(command=_require_node(), args=[str(EVERYTHING_ENTRY), "stdio"], env=env)


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


async def wait_for_port(port: int, process: Process | None = None, limit_s: float = START_TIMEOUT_S) -> None:
    """Poll until 127.0.0.1:port accepts a connection; fail early if `process` exits."""
    with anyio.fail_after(limit_s):
        while True:
            if process is not None and process.returncode is not None:
                raise RuntimeError(f"server exited with code {process.returncode} before listening on {port}")
            try:
                stream = await anyio.connect_tcp(LOOPBACK, port)
            except OSError:
                await anyio.sleep(0.05)
                continue
            await stream.aclose()
            return


async def _stop(process: Process) -> None:
    """Terminate the server, escalating to kill if it ignores SIGTERM."""
    if process.returncode is None:
        process.terminate()
        with anyio.move_on_after(5):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()


@asynccontextmanager
async def run_http_server(command: list[str], port: int, env: dict[str, str] | None = None) -> AsyncIterator[Process]:
    """Start an HTTP MCP server process, wait for its port, and always stop it afterwards."""
    # stderr goes to a file, not a pipe nobody drains (a full pipe would block the server).
    with tempfile.TemporaryFile() as errlog:
        process = await anyio.open_process(
            command,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errlog,
        )
        try:
            try:
                await wait_for_port(port, process)
            except (RuntimeError, TimeoutError) as exc:
                errlog.seek(0)
                tail = errlog.read()[-2000:].decode("utf-8", "replace")
                raise RuntimeError(f"{exc}; command {command!r}; stderr:\n{tail}") from exc
            yield process
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process)


@asynccontextmanager
async def run_everything_http(port: int | None = None) -> AsyncIterator[str]:
    """Run server-everything in streamableHttp mode on 127.0.0.1; yields the MCP URL."""
    node = _require_node()
    port = free_port() if port is None else port
    command = [node, "--require", str(LOOPBACK_PRELOAD), str(EVERYTHING_ENTRY), "streamableHttp"]
    async with run_http_server(command, port, env={"PORT": str(port)}):
        yield f"http://{LOOPBACK}:{port}{HTTP_PATH}"


@asynccontextmanager
async def run_fixture_http(port: int | None = None, *extra_args: str, sse: bool = False) -> AsyncIterator[str]:
    """Run the Python fixture server over streamable HTTP (or SSE) on 127.0.0.1; yields its URL."""
    port = free_port() if port is None else port
    script = SERVERS_DIR / "fixture_server.py"
    command = [sys.executable, str(script), "--sse" if sse else "--http", str(port), *extra_args]
    async with run_http_server(command, port):
        yield f"http://{LOOPBACK}:{port}{'/sse' if sse else '/mcp'}"
