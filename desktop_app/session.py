"""The core behind the window: the server host, configuration, settings, conversations and the panes
built on them; connecting servers after the window is filled, and the orderly stop.

`desktop_app.app.run_window` imports this module once the window is painted: it loads the MCP SDK,
pydantic and every pane.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import default_settings_path, load_settings
from desktop_app.core.asks.service import SAMPLING_GRANTS_FILENAME, SamplingGrants
from desktop_app.core.chat.approval import RULES_FILENAME, AlwaysAllowRules
from desktop_app.core.chat.history_open import open_history
from desktop_app.core.chat.tokens import release_encodings
from desktop_app.core.config_store import ConfigStore
from desktop_app.core.host import ServerHost
from desktop_app.core.mupdf_worker import close_all_workers
from desktop_app.core.paths import data_dir, history_path
from desktop_app.core.policy.in_force import PolicyInForce
from desktop_app.core.secret_store import PasswordRequiredError, SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.demo_server import demo_server_command
from desktop_app.ui.shell.application import apply_theme
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.ui.shell.panes import fill_window
from desktop_app.ui.widgets.notice_box import show_notice

log = logging.getLogger(__name__)

STEP_DEADLINE_S = 5.0
"""How long one step of quitting may take before the app moves on (each takes well under a second)."""


def demo_server_config() -> ServerConfig:
    """The embedded demo server, so a first launch with no configuration is already alive.

    It ships with the app, so it is trusted: its annotations count and its content does not taint a chat.
    """
    command, args = demo_server_command()
    return ServerConfig(name="demo", transport=TransportKind.STDIO, command=command, args=tuple(args), trusted=True)


def policy_notice(policy: PolicyInForce) -> str | None:
    """What to tell the user about an organisation's policy file that cannot be followed (said once)."""
    if policy.problem is None:
        return None
    return f"Your organisation's policy could not be read, so it blocks nothing:\n\n{policy.problem}"


def config_notice(store: ConfigStore) -> str | None:
    """What to tell the user about a configuration file that could not be read."""
    if store.error is None:
        return None
    return f"Your server configuration could not be read and was left untouched:\n\n{store.error}"


class Session:
    """Fills `window` with its panes over a new host and starts connecting; `stop` then `close` end it."""

    def __init__(self, window: MainWindow, config_path: Path, settings_path: Path | None = None) -> None:
        host = ServerHost()
        store = ConfigStore(config_path)
        self.bridge = bridge = CoreBridge(host, None, store, fallback=[demo_server_config()])
        settings_path = settings_path or default_settings_path()
        loaded_settings = load_settings(settings_path)
        if isinstance(app := QApplication.instance(), QApplication):
            apply_theme(app, loaded_settings.settings.theme)  # the first paint had the default file's
        host.asks.grants = SamplingGrants(data_dir() / SAMPLING_GRANTS_FILENAME)
        host.asks.default_roots = loaded_settings.settings.roots
        history = open_history(history_path(config_path))  # a damaged or held file: a notice, never a stop
        self.conversations = history.store
        self.window = window
        fill_window(
            window,
            bridge,
            conversations=self.conversations,
            rules=AlwaysAllowRules(data_dir() / RULES_FILENAME),
            settings=loaded_settings.settings,
            settings_path=settings_path,
        )
        # The model library loads as the user types.
        window.composer.editor.textChanged.connect(lambda *_: window.chat.warmup.start())
        for notice in (config_notice(store), loaded_settings.error, policy_notice(host.managed), history.notice):
            if notice:
                show_notice(window, notice)
        self._starting = asyncio.ensure_future(self._connect())

    async def _connect(self) -> None:
        """Open the secret store (asking for its password if it has one), then connect every server."""
        bridge = self.bridge
        # Finding the OS keyring takes ~100 ms: off the event loop.
        try:
            bridge.set_secrets(await asyncio.to_thread(open_secret_store, data_dir()))
        except PasswordRequiredError:
            await self.window.settings_actions.unlock_secrets()  # servers may need secrets: connect once answered
        except SecretStoreError as exc:
            log.warning("No secret store: %s", exc)
            show_notice(self.window, f"Secrets cannot be stored or read: {exc}")
        bridge.host.start(bridge.configured_servers())
        self.window.gallery.check_updates()  # "update" badges for servers installed from a registry

    async def stop(self) -> None:
        """Wait for the chat, close app views, stop every server, the PDF engine's and the tokenizer's processes.

        Each step is bounded, and a step that fails or overstays is logged and left behind: quitting always
        ends, and the servers are stopped whatever came before them."""
        try:
            if not self._starting.done():
                self._starting.cancel()  # e.g. closed while the secrets password was being asked for
                await _within(self._starting, "connecting to stop")
            await _within(self.window.chat.wait_idle(), "the chat's turn to end")
            await _within(self.window.apps.shut_down(), "the app views to close")
            await self.bridge.host.quit()
        except Exception:
            log.exception("Stopping did not finish cleanly")
        finally:
            close_all_workers()
            release_encodings(quitting=True)

    def close(self) -> None:
        self.conversations.close()


async def _within(step: Awaitable[None], what: str) -> None:
    """Run one step of quitting; past its deadline, or failing, it is logged and cancelled, and quitting goes on."""
    task = asyncio.ensure_future(step)
    done, _ = await asyncio.wait({task}, timeout=STEP_DEADLINE_S)
    if not done:
        log.warning("Quitting went on without waiting for %s", what)
        task.cancel()
    elif not task.cancelled() and (problem := task.exception()) is not None:
        log.error("Quitting: waiting for %s failed", what, exc_info=problem)
