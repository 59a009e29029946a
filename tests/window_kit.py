"""Helpers for tests that run the window or the UI bridge over real servers, on the app's own event loop."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import shiboken6
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.app import run_window
from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.auth.browser import BrowserOpener
from desktop_app.core.connection import ServerConnection
from desktop_app.core.host import ServerHost
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.ui.shell.event_loop import qt_event_loop
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FAST_RESTARTS, eventually, live_children

WINDOW_DEADLINE = 60.0
"""How long a window test waits for the window and its servers: generous, it only ends a hang."""
QUIT_DEADLINE = 30.0
"""Quitting takes under 2 s by design: past this it hangs, and what still runs is written to stderr."""


W = TypeVar("W", bound=QWidget)


def on_screen(qtbot: QtBot, widget: W, width: int, height: int) -> W:
    """`widget` as a window of its own at `width` × `height`, shown and exposed (deleted after the test)."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


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
    """Every other task of the running loop, with where it waits: its stack, then the chain of awaits
    down to the innermost (a task's stack stops at its own coroutine; the SDK's waits are further down)."""
    report = io.StringIO()
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            report.write(f"--- {task!r}\n")
            task.print_stack(limit=25, file=report)
            report.write("awaiting:\n" + "".join(f"  {where}\n" for where in _awaits(task)))
    return report.getvalue()


def _awaits(task: asyncio.Task[Any]) -> list[str]:
    where: list[str] = []
    awaited: Any = task.get_coro()
    while awaited is not None and len(where) < 40:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
        frame = frame or getattr(awaited, "gi_frame", None)
        if frame is not None:
            where.append(f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}")
        inner = getattr(awaited, "cr_await", None) or getattr(awaited, "ag_await", None)
        awaited = inner or getattr(awaited, "gi_yieldfrom", None)
    return where


async def _no_task_outlives_the_app() -> None:
    """Once the app has quit, no server's task may still run; any other left is cancelled here, as the
    event loop's close would, and must end: the loop's close would otherwise wait for it forever."""
    left = {task for task in asyncio.all_tasks() if task is not asyncio.current_task()}
    servers = sorted(task.get_name() for task in left if task.get_name().startswith("mcp-server:"))
    for task in left:
        task.cancel()
    if left and (await asyncio.wait(left, timeout=QUIT_DEADLINE))[1]:
        os.write(2, still_running().encode("utf-8", "replace"))
        raise AssertionError("tasks left by the app did not end when cancelled; they are on stderr")
    assert servers == [], f"servers still running after the app quit: {servers}"


@asynccontextmanager
async def window_session(app: QApplication, config: Path, settings: Path | None = None) -> AsyncIterator[MainWindow]:
    """The real composition root (`run_window`) on `config` and `settings`, on the running loop: its window
    once the panes are in; on leaving, the window closed as a user closes it, the quit awaited (a quit past
    `QUIT_DEADLINE` fails with what still runs on stderr) and no task of the app left running.

    The one way tests, benches and the screenshot script start the window: run it under `run_in_qt`."""
    running = asyncio.ensure_future(run_window(app, config, settings))
    try:
        window = await main_window(app, WINDOW_DEADLINE)
    except BaseException:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        raise
    try:
        yield window
    finally:
        window.close()
        done, _ = await asyncio.wait({running}, timeout=QUIT_DEADLINE)  # as quick as awaiting it: no shield
        if not done:
            os.write(2, still_running().encode("utf-8", "replace"))  # past the capture: the test may be killed
            raise AssertionError("quitting hung; the tasks still running are on stderr")
        running.result()
    await _no_task_outlives_the_app()
    _delete_now(window)


def _delete_now(window: MainWindow) -> None:
    """The closed window and every widget in it deleted now, on this (the GUI) thread. The app's helpers
    hold the window in reference cycles through Qt that the collector cannot see (one window per process
    needs no more), so a window left to them outlives its test, and each later change of theme in the
    process restyles all its widgets again: seconds per window left."""
    shiboken6.delete(window)


async def needing_sign_in(window: MainWindow, server: str, opener: BrowserOpener) -> ServerConnection:
    """`server`'s connection once it has started and waits for the user to sign in; sign-in pages now go to
    `opener` (the test's browser) instead of the system's."""
    host = window.bridge.host
    await eventually(lambda: server in host.connections, WINDOW_DEADLINE, "the server to start")
    connection = host.connection(server)
    await eventually(lambda: connection.status.state is ServerState.NEEDS_SIGN_IN, WINDOW_DEADLINE, "needs sign-in")
    host.sign_in.opener = opener
    return connection


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
        async with window_session(app, config, settings_path) as window:
            host = window.bridge.host
            await eventually(lambda: host.ready_count() >= ready, WINDOW_DEADLINE, f"{ready} servers ready")
            await steps(window)

    quits_alone = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)  # as the app's (`set_up_application`): quitting waits for the servers
    try:
        run_in_qt(app, play())
    finally:
        app.setQuitOnLastWindowClosed(quits_alone)
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
