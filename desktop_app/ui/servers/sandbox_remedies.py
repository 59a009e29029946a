"""The server manager's answers to a sandbox refusal: allow what was refused, or run without the sandbox.

Allowing saves the refused target in the server's entry, after a non-blocking question; running
unconfined is either for this run only (nothing saved) or saved as `sandboxEnabled` off. Every save
restarts the server, so the change takes effect at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox.denials import Denial, allowed
from desktop_app.core.server_config import ServerConfig
from desktop_app.ui.widgets.confirm import confirm
from desktop_app.ui.widgets.notice_box import show_notice


def configured(bridge: CoreBridge, name: str) -> ServerConfig | None:
    """The server's entry in servers.json (None for the embedded demo, which is not in it)."""
    return bridge.store.servers.get(name) if bridge.store is not None else None


class SandboxRemedies:
    """Acts for the selected server on the denial its details show; notices are parented to `window`."""

    def __init__(
        self,
        window: QWidget,
        bridge: CoreBridge,
        selected: Callable[[], str | None],
        denial: Callable[[], Denial | None],
    ) -> None:
        self._window = window
        self._bridge = bridge
        self._selected = selected
        self._denial = denial

    def offer_allow(self) -> QMessageBox | None:
        """Ask, without blocking, to allow exactly what the sandbox refused; Yes saves it in the entry and restarts."""
        name, denial = self._selected(), self._denial()
        if name is None or denial is None or configured(self._bridge, name) is None:
            return None
        box = confirm(
            self._window,
            "Allow in the sandbox",
            f'{denial.question(name)}\n\n"{denial.target}" is added to {denial.key} in its entry, and it restarts.',
            lambda: self._allow(name, denial),
        )
        box.setTextFormat(Qt.TextFormat.PlainText)  # a path the server named is its text, never markup
        return box

    def _allow(self, name: str, denial: Denial) -> None:
        config = configured(self._bridge, name)
        if config is None:
            return
        try:
            self._bridge.save_server(replace(config, sandbox=allowed(config.sandbox, denial)), name)
        except ConfigError as exc:
            show_notice(self._window, f"It could not be allowed: {exc}")

    def run_unconfined_once(self) -> None:
        """The user's click: this server runs without the sandbox until the app quits (nothing is saved)."""
        name = self._selected()
        connection = None if name is None else self._bridge.host.connections.get(name)
        if connection is not None and connection.confinement.offers_unconfined:
            connection.confinement.unconfined = True
            self._bridge.restart_server(connection.name)

    def run_unconfined_always(self) -> None:
        """The user's click: its entry is saved with `sandboxEnabled` off (the save restarts it)."""
        name = self._selected()
        config = None if name is None else configured(self._bridge, name)
        if name is None or config is None or not self._bridge.host.connection(name).confinement.offers_unconfined:
            return
        try:
            self._bridge.save_server(replace(config, sandbox_enabled=False), name)
        except ConfigError as exc:
            show_notice(self._window, f"It could not be saved: {exc}")
