"""Helpers for tests that run real servers through the host."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from desktop_app.app import run_window
from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.host import ServerHost
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.demo_server import demo_server_command
from desktop_app.ui.event_loop import qt_event_loop
from desktop_app.ui.main_window import MainWindow

FIXTURE_SCRIPT = Path(__file__).parent / "servers" / "fixture_server.py"
FAST_RESTARTS = RestartPolicy(first_delay=0.05, max_delay=0.2, max_attempts=3, healthy_after=60.0)
WINDOW_DEADLINE = 60.0
"""How long a window test waits for the window and its servers: generous, it only ends a hang."""
QUIT_DEADLINE = 30.0
"""Quitting takes under 2 s by design: past this it hangs, and what still runs is written to stderr."""


def fixture_config(name: str = "fx", *flags: str, **options: object) -> ServerConfig:
    """The fixture server over real stdio, run by this interpreter."""
    return ServerConfig(
        name=name,
        transport=TransportKind.STDIO,
        command=sys.executable,
        args=(str(FIXTURE_SCRIPT), *flags),
        **options,  # type: ignore[arg-type]
    )


async def eventually(
    check: Callable[[], object], timeout: float = 15.0, what: str = "condition", seen: Callable[[], str] | None = None
) -> None:
    """Wait until `check()` is truthy; on timeout, name `what` (and what was `seen` instead, when given)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f" ({seen()})" if seen else ""))
        await asyncio.sleep(0.02)


async def main_window(app: QApplication, timeout: float = 30.0) -> MainWindow:
    """The app's window once its panes are in (a closed window of an earlier test does not count)."""

    def filled() -> MainWindow | None:
        return next(
            (w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible() and w.filled), None
        )

    await eventually(filled, timeout, "the main window with its panes")
    window = filled()
    assert window is not None
    return window


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
    return command[0].endswith(b"QtWebEngineProcess") or b"desktop_app.core.chat.token_process" in command


def run_in_qt(app: QApplication, scenario: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine on the app's event loop over the test's QApplication (widgets and servers together)."""
    try:
        with asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
            return runner.run(scenario)
    finally:
        # A closed qasync loop lives in reference cycles, with Qt timers still registered on its
        # timer object: collect it now, while no Qt event is being dispatched (collected later,
        # in the middle of one, its half-cleared timer object can crash the process).
        gc.collect()


def still_running() -> str:
    """Every other task of the running loop, with where it waits."""
    report = io.StringIO()
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            report.write(f"--- {task!r}\n")
            task.print_stack(limit=25, file=report)
    return report.getvalue()


def run_window_scenario(
    app: QApplication,
    tmp_path: Path,
    steps: Callable[[MainWindow], Awaitable[object]],
    *,
    servers: dict[str, Any],
    settings: AppSettings | None = None,
    ready: int = 0,
) -> Path:
    """The real composition root with `servers` in its servers.json and `settings` (none: a first start's):
    once its window is up and `ready` servers are, play `steps`, close the window as a user does, and
    check that no process is left behind. Returns the servers.json as the run left it.

    With no `servers`, the embedded demo server runs instead (count it in `ready`).
    """
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    settings_path = tmp_path / "settings.json"
    if settings is not None:
        save_settings(settings_path, settings)

    async def play() -> None:
        running = asyncio.ensure_future(run_window(app, config, settings_path))
        window = await main_window(app, WINDOW_DEADLINE)
        try:
            host = window.bridge.host
            await eventually(lambda: host.ready_count() >= ready, WINDOW_DEADLINE, f"{ready} servers ready")
            await steps(window)
        finally:
            window.close()
            done, _ = await asyncio.wait({running}, timeout=QUIT_DEADLINE)  # as quick as awaiting it: no shield
            if not done:
                os.write(2, still_running().encode("utf-8", "replace"))  # past the capture: the test may be killed
                raise AssertionError("quitting hung; the tasks still running are on stderr")
            running.result()

    run_in_qt(app, play())
    assert live_children() == []
    return config


async def inprocess_bridge(servers: dict[str, Any]) -> CoreBridge:
    """Real MCP server objects run inside this process (no child process, no pipe), one connection
    each, all ready, behind the UI bridge.

    Their configs say stdio only because a config needs a transport: the command is never run, the
    client talks to the server object directly. `stdio_bridge` runs servers as the app does.
    """
    host = ServerHost(policy=FAST_RESTARTS, target_factory=lambda config, _hooks: servers[config.name])
    bridge = CoreBridge(host)
    host.start([ServerConfig(name=n, transport=TransportKind.STDIO, command="unused") for n in servers])
    await host.wait_settled(60)
    return bridge


async def stdio_bridge(configs: list[ServerConfig]) -> CoreBridge:
    """Servers as child processes over real stdio, one connection each, all settled, behind the UI bridge."""
    host = ServerHost(policy=FAST_RESTARTS)
    bridge = CoreBridge(host)
    host.start(configs)
    await host.wait_settled(60)
    return bridge


def demo_config(name: str = "demo") -> ServerConfig:
    """The demo server over real stdio, started the way the app starts it."""
    command, args = demo_server_command()
    return ServerConfig(name=name, transport=TransportKind.STDIO, command=command, args=tuple(args))
