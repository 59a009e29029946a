"""Helpers for tests that run real servers through the host: Qt-free, so the core's and the command
line's tests load no Qt (`window_kit.py` has the window's helpers)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from desktop_app.core.asks.question import Asker
from desktop_app.core.host import ServerHost
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.demo_server import demo_server_command

FIXTURE_SCRIPT = Path(__file__).parent / "servers" / "fixture_server.py"
FAST_RESTARTS = RestartPolicy(first_delay=0.05, max_delay=0.2, max_attempts=3, healthy_after=60.0)


def fixture_config(name: str = "fx", *flags: str, **options: object) -> ServerConfig:
    """The fixture server over real stdio, run by this interpreter."""
    return ServerConfig(
        name=name,
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(FIXTURE_SCRIPT), *flags),
        **options,  # type: ignore[arg-type]
    )


def inprocess_config(name: str, **options: Any) -> ServerConfig:
    """The configuration of a server `serving` hands the host in-process: its command is never run."""
    return ServerConfig(name=name, transport=TransportKind.STDIO, command="unused", **options)


@asynccontextmanager
async def serving_configs(
    *configs: ServerConfig,
    settle: float | None = 15.0,
    asker: Asker | None = None,
    prepare: Callable[[ServerHost], object] | None = None,
    **host_options: Any,
) -> AsyncIterator[ServerHost]:
    """A host running `configs`, every one settled within `settle` seconds (None: not waited for); stopped
    on leaving. `host_options` go to `ServerHost` (quick restarts unless `policy` says otherwise); before
    any server starts, `asker` becomes the user servers' questions go to and `prepare(host)` runs (a task
    store, a bus subscriber)."""
    host = ServerHost(**{"policy": FAST_RESTARTS, **host_options})
    if asker is not None:
        host.questions.asker = asker
    if prepare is not None:
        prepare(host)
    host.start(configs)
    try:
        if settle is not None:
            await host.wait_settled(settle)
        yield host
    finally:
        await host.stop_all()


def serving(
    servers: Mapping[str, object], *configs: ServerConfig, **options: Any
) -> AbstractAsyncContextManager[ServerHost]:
    """A host whose servers are these in-process server objects, by name (configured by `inprocess_config`
    unless `configs` says otherwise, then looked up by each config's name); otherwise `serving_configs`."""
    configs = configs or tuple(inprocess_config(name) for name in servers)
    return serving_configs(*configs, target_factory=lambda config, _hooks: servers[config.name], **options)


async def eventually(
    check: Callable[[], object], timeout: float = 15.0, what: str = "condition", seen: Callable[[], str] | None = None
) -> None:
    """Wait until `check()` is truthy; on timeout, name `what` (and what was `seen` instead, when given)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f" ({seen()})" if seen else ""))
        await asyncio.sleep(0.02)


def live_children(parent: int | None = None) -> list[int]:
    """PIDs of the children of `parent` (default: this process) that still exist (zombies included: they leaked too).

    QtWebEngine's helper processes are not counted: Qt starts them once for the whole process
    (MCP App views) and ends them with it. Nor is the tokenizer's: the app starts it for counts
    and ends it when idle and at quitting (tests/core/chat/test_tokens.py checks that), whichever
    servers run meanwhile.
    """
    me = str(os.getpid() if parent is None else parent)
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 (after the parenthesised command name) is the parent pid.
        fields = stat.rsplit(")", 1)[1].split()
        if fields[1] == me and not _is_process_wide_helper(entry):
            children.append(int(entry.name))
    return children


def _is_process_wide_helper(proc: Path) -> bool:
    try:
        command = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    helpers = (b"desktop_app.core.chat.token_process", b"tests.server_forks")  # the latter: forks test servers
    return command[0].endswith(b"QtWebEngineProcess") or any(helper in command for helper in helpers)


def demo_config(name: str = "demo") -> ServerConfig:
    """The demo server over real stdio, started the way the app starts it."""
    command, args = demo_server_command()
    return ServerConfig(name=name, transport=TransportKind.STDIO, command=command, args=tuple(args))
