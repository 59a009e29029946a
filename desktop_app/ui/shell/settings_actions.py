"""Settings and secrets from the window: the settings dialog, unlocking and encrypting the secrets file.

Sign-in settings reach the host here, at start and on every Apply: the client metadata document
and the organisation's identity provider (unless the managed policy sets one: then the policy's
stays), its client secret read from the store in use, again whenever that store changes.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.config_error import ConfigError
from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import (
    SecretStore,
    SecretStoreError,
    WrongPasswordError,
    encrypt_plaintext_store,
    open_secret_store,
)
from desktop_app.ui.chat.chat_controller import ChatController
from desktop_app.ui.settings.password_dialog import PasswordDialog
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.application import apply_theme
from desktop_app.ui.widgets.notice_box import show_notice

log = logging.getLogger(__name__)


class SettingsActions(QObject):
    """Opens the settings and asks for the secrets' password, on behalf of `window`."""

    sig_applied = Signal()  # saved settings are in use: what shows them refreshes

    def __init__(self, window: QWidget, bridge: CoreBridge, chat: ChatController, settings_path: Path) -> None:
        super().__init__(window)
        self._window = window
        self._bridge = bridge
        self._chat = chat
        self._settings_path = settings_path
        self.sign_in_problem: str | None = None
        """Why the identity provider in Settings cannot be used now (its client secret is not in the store)."""
        self._use_sign_in_settings(chat.settings)
        bridge.secrets_changed.connect(self._on_secrets)

    def open_settings(self, reason: str | None = None, *, provider: str | None = None) -> None:
        """Settings, non-modal; `reason` says why they opened without being asked for, `provider`
        which provider's settings to show (the "Choose a model" card's pick)."""
        servers = self._bridge.store.servers if self._bridge.store is not None else {}
        dialog = SettingsDialog(
            self._chat.settings,
            self._bridge.secrets,
            self._chat.rules,
            self._window,
            servers=servers,
            reason=reason,
            grants=self._bridge.host.asks.grants,
        )
        dialog.server_rule_revoked.connect(self._revoke_server_rule)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.saved.connect(self.apply_settings)
        dialog.encrypt_requested.connect(lambda: self._bridge.spawn(self.encrypt_secrets(), "Encrypting secrets"))
        self._bridge.secrets_changed.connect(dialog.set_secrets)
        dialog.open()
        if provider is not None:
            dialog.choose_provider(provider)

    async def unlock_secrets(self) -> None:
        """The encrypted secrets file needs its password; without it servers start with no secrets."""
        opened: list[SecretStore] = []

        def check(password: str) -> str | None:
            try:
                opened.append(open_secret_store(data_dir(), password=password))
            except WrongPasswordError:
                return "That password does not open the secrets file."
            except SecretStoreError as exc:
                return str(exc)
            return None

        dialog = PasswordDialog(
            self._window,
            "Unlock secrets",
            "Your API keys and server secrets are in an encrypted file. Enter its password.",
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if await dialog.ask(check) is not None and opened:
            self._bridge.set_secrets(opened[-1])
        else:
            show_notice(
                self._window, "The secrets stay locked: servers and models that need them will fail to connect."
            )

    async def encrypt_secrets(self) -> None:
        """Move plaintext secrets into an encrypted file protected by a new password."""
        plain = self._bridge.secrets
        if plain is None or plain.backend.kind != "plaintext-file":
            return
        moved: list[SecretStore] = []

        def check(password: str) -> str | None:
            try:
                moved.append(encrypt_plaintext_store(plain, data_dir(), password))
            except SecretStoreError as exc:
                return str(exc)
            return None

        dialog = PasswordDialog(
            self._window,
            "Protect secrets with a password",
            "Secrets will be kept in an encrypted file; you will enter this password when MCP Desk starts.",
            confirm=True,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if await dialog.ask(check) is not None and moved:
            self._bridge.set_secrets(moved[-1])

    def _revoke_server_rule(self, name: str) -> None:
        """Settings revoked "run this server's read-only tools without asking"."""
        store = self._bridge.store
        if store is None or name not in store.servers:
            return
        try:
            self._bridge.save_server(replace(store.servers[name], auto_approve_read_only=False), name)
        except ConfigError as exc:
            show_notice(self._window, f"The rule could not be revoked:\n\n{exc}")

    def apply_settings(self, settings: AppSettings) -> None:
        """Save `settings` and use them at once."""
        try:
            save_settings(self._settings_path, settings)
        except OSError as exc:
            show_notice(self._window, f"The settings could not be saved: {exc}")
        self._chat.apply_settings(settings)
        if isinstance(app := QApplication.instance(), QApplication):
            apply_theme(app, settings.theme)
        self._use_sign_in_settings(settings)
        if self.sign_in_problem is not None:
            show_notice(self._window, f"Organisation sign-in is not used: {self.sign_in_problem}.")
        self._bridge.spawn(self._bridge.host.set_default_roots(settings.roots), "Offering the default roots")
        self.sig_applied.emit()

    def _on_secrets(self, _store: object) -> None:
        self._use_sign_in_settings(self._chat.settings)  # the identity provider's secret may be in this store

    def _use_sign_in_settings(self, settings: AppSettings) -> None:
        """Sign-in as Settings say: the client document, and the identity provider unless the policy sets one."""
        host = self._bridge.host
        host.sign_in.client_metadata_url = settings.client_metadata_url or None
        self.sign_in_problem = None
        if host.managed.identity_provider is not None:
            return  # the organisation's, set by the host from its policy; Settings show it read-only
        idp = settings.identity_provider
        try:
            host.sign_in.identity_provider = idp.resolved(self._bridge.secrets or _NoSecrets()) if idp else None
        except ValueError as exc:
            host.sign_in.identity_provider = None
            self.sign_in_problem = str(exc)
            log.warning("the identity provider in Settings cannot be used yet: %s", exc)


class _NoSecrets:
    """No store is open (yet): no secret is found."""

    def get(self, name: str) -> str | None:
        return None
