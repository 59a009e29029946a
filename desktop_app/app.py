"""Composition root: the Qt application, the qasync loop, the core objects and the window."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import default_settings_path, load_settings
from desktop_app.core.asks.service import SAMPLING_GRANTS_FILENAME, SamplingGrants
from desktop_app.core.chat.approval import RULES_FILENAME, AlwaysAllowRules
from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.core.config_file import default_config_path
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.log_routing import install_logging
from desktop_app.core.mupdf_worker import close_all_workers
from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import PasswordRequiredError, SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.demo_server import demo_server_command
from desktop_app.single_instance import PrimaryInstance
from desktop_app.splash import Splash
from desktop_app.ui.app_icon import app_icon
from desktop_app.ui.main_window import MainWindow

log = logging.getLogger(__name__)


def demo_server_config() -> ServerConfig:
    """The embedded demo server, so a first launch with no configuration is already alive.

    It ships with the app, so it is trusted: its annotations count and its content does not taint a chat.
    """
    command, args = demo_server_command()
    return ServerConfig(name="demo", transport=TransportKind.STDIO, command=command, args=tuple(args), trusted=True)


def config_notice(store: ConfigStore) -> str | None:
    """What to tell the user about a configuration file that could not be read."""
    if store.error is None:
        return None
    return f"Your server configuration could not be read and was left untouched:\n\n{store.error}"


async def run_window(
    app: QApplication,
    config_path: Path,
    settings_path: Path | None = None,
    splash: Splash | None = None,
    instance: PrimaryInstance | None = None,
) -> None:
    """Show the window first, then connect servers; return once everything has stopped."""
    host = ServerHost()
    store = ConfigStore(config_path)
    bridge = CoreBridge(host, None, store, fallback=[demo_server_config()])
    settings_path = settings_path or default_settings_path()
    loaded_settings = load_settings(settings_path)
    host.asks.grants = SamplingGrants(data_dir() / SAMPLING_GRANTS_FILENAME)
    host.asks.default_roots = loaded_settings.settings.roots
    conversations = ConversationStore.open_default()
    finished = asyncio.Event()
    window: MainWindow | None = None
    starting: asyncio.Task[None] | None = None

    async def shut_down() -> None:
        if instance is not None:
            instance.release()  # a new launch may start while this one finishes stopping
        try:
            if starting is not None and not starting.done():
                starting.cancel()  # e.g. closed while the secrets password was being asked for
                await asyncio.gather(starting, return_exceptions=True)
            if window is not None:
                await window.chat.wait_idle()
                await window.apps.shut_down()
            await host.stop_all()
            close_all_workers()  # the PDF engine's processes go too
        finally:
            finished.set()

    window = MainWindow(
        bridge,
        on_close=lambda: bridge.spawn(shut_down(), "Stopping servers"),
        conversations=conversations,
        rules=AlwaysAllowRules(data_dir() / RULES_FILENAME),
        settings=loaded_settings.settings,
        settings_path=settings_path,
    )
    window.show()
    window.composer.editor.textChanged.connect(window.chat.warm_up)  # the model library loads as the user types
    if splash is not None:
        splash.finish(window)
    if instance is not None:
        instance.sig_show_requested.connect(window.bring_to_front)
    for notice in (config_notice(store), loaded_settings.error):
        if notice:
            window.show_notice(notice)
    starting = asyncio.ensure_future(_connect(window, bridge))
    restore_signals = _close_on_signals(window)
    try:
        await finished.wait()
    finally:
        restore_signals()
    window.close()
    conversations.close()


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


async def _connect(window: MainWindow, bridge: CoreBridge) -> None:
    """After the window is up: open the secret store (asking for its password if it has one), then
    connect every server."""
    # Finding the OS keyring takes ~100 ms: off the event loop.
    try:
        bridge.set_secrets(await asyncio.to_thread(open_secret_store, data_dir()))
    except PasswordRequiredError:
        await window.unlock_secrets()  # servers may need secrets: connect once this is answered
    except SecretStoreError as exc:
        log.warning("No secret store: %s", exc)
        window.show_notice(f"Secrets cannot be stored or read: {exc}")
    bridge.host.start(bridge.configured_servers())
    window.gallery.check_updates()  # "update" badges for servers installed from a registry


def run_app(
    app: QApplication,
    config_path: Path | None = None,
    splash: Splash | None = None,
    instance: PrimaryInstance | None = None,
) -> int:
    install_logging(logging.WARNING)  # warnings on the terminal, secrets redacted, servers' own in their logs
    app.setApplicationName("MCP Desk")
    app.setOrganizationName("MCP Desk")
    app.setDesktopFileName("mcp-desk")
    app.setWindowIcon(app_icon())
    app.setQuitOnLastWindowClosed(False)  # quitting waits until every server has stopped
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(run_window(app, config_path or default_config_path(), splash=splash, instance=instance))
    return 0


if __name__ == "__main__":
    sys.exit(run_app(QApplication(sys.argv)))
