"""Composition root: the qasync loop, the window, then the core behind it.

Only Qt and small modules are imported until the window's first paint, so it is on screen about as
fast as a bare Qt window; the core (the MCP SDK, pydantic) and the panes load right after, into the
same window (`desktop_app.session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication

from desktop_app.core.log_routing import install_logging
from desktop_app.pyside_fixes import reserve_none_references
from desktop_app.single_instance import PrimaryInstance
from desktop_app.ui.shell.event_loop import qt_event_loop
from desktop_app.ui.shell.gui_thread import gui_thread_first
from desktop_app.ui.shell.main_window import FIRST_PAINT_WAIT_MS, MainWindow

if TYPE_CHECKING:
    from desktop_app.session import Session

log = logging.getLogger(__name__)


async def run_window(
    app: QApplication,
    config_path: Path,
    settings_path: Path | None = None,
    instance: PrimaryInstance | None = None,
    window: MainWindow | None = None,
) -> None:
    """Show the window, fill it once painted, then connect servers; return once everything has stopped.

    `window` is the frame when the caller already put it on screen (the app does, before importing
    asyncio); tests and benches leave it out.
    """
    reserve_none_references()  # before the window's long life of Qt calls: see desktop_app/pyside_fixes.py
    stopping = asyncio.Event()
    if window is None:
        window = MainWindow()
        window.show()
    window.sig_close_requested.connect(stopping.set)
    if window.close_requested:
        stopping.set()
    if instance is not None:
        instance.sig_show_requested.connect(window.bring_to_front)
    restore_signals = _close_on_signals(window)
    session: Session | None = None
    with gui_thread_first():  # Qt objects die on the GUI thread; it waits less behind workers
        try:
            if not window.framed:
                framed = asyncio.Event()
                window.sig_framed.connect(framed.set)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(framed.wait(), FIRST_PAINT_WAIT_MS / 1000)
            window.complete_frame()  # its docks and menus, built by its first paint (never painted: now)
            if not stopping.is_set():
                # The core and the panes, only now and in a worker: the painted frame still moves, resizes
                # and quits while a second or more of imports runs (the thread yields to it every few ms).
                await asyncio.to_thread(importlib.import_module, "desktop_app.session")
            if not stopping.is_set():
                from desktop_app.session import Session

                session = Session(window, config_path, settings_path)
            await stopping.wait()
            if instance is not None:
                instance.release()  # a new launch may start while this one finishes stopping
            if session is not None:
                await session.stop()
        finally:
            restore_signals()
        window.close()
        if session is not None:
            session.close()


def _close_on_signals(window: MainWindow) -> Callable[[], None]:
    """SIGTERM, SIGHUP and Ctrl+C close the window, so they stop every server the same orderly way.

    asyncio's handlers wake the loop through its self-pipe, which qasync watches with a socket
    notifier: the signal is seen at once even while Qt is idle. Returns the undo.
    """
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for number in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is None:
            continue
        try:
            loop.add_signal_handler(number, window.close)
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # Windows' loops have no signal handlers; Ctrl+C keeps Python's default there
        installed.append(number)

    def restore() -> None:
        for number in installed:
            loop.remove_signal_handler(number)

    return restore


def run_app(app: QApplication, config_path: Path, instance: PrimaryInstance, window: MainWindow) -> int:
    """Run the app in `window`, already on screen, until it has quit."""
    install_logging(logging.WARNING)  # warnings on the terminal, secrets redacted, servers' own in their logs
    with asyncio.Runner(loop_factory=lambda: qt_event_loop(app)) as runner:
        runner.run(run_window(app, config_path, instance=instance, window=window))
    return 0
