"""Organisation sign-in in Settings: typed in the window, applied to sign-in at once (Apply), used to sign in
to a server that trusts the organisation's identity provider; read-only when the managed policy sets it."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit, QPushButton
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import IDP_SECRET, IDP_SECRET_NAME, AppSettings, load_settings, save_settings
from desktop_app.core.auth.idp import IdentityProviderSettings
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.server_status import ServerState
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.core.auth.organisation_idp import CLIENT_ID, organisation
from tests.hosting import eventually
from tests.servers.identity_provider import IDP_CLIENT_ID
from tests.servers.oauth_browsers import FollowingBrowser
from tests.window_kit import run_window_scenario

until = functools.partial(eventually, timeout=60.0)
Scenario = Callable[[MainWindow], Awaitable[None]]


def run(qapp: QApplication, tmp_path: Path, servers: dict[str, object], scenario: Scenario) -> None:
    run_window_scenario(qapp, tmp_path, scenario, servers=servers)


async def open_settings(window: MainWindow) -> SettingsDialog:
    window.menu_actions.settings.trigger()
    await until(lambda: any(d.isVisible() for d in window.findChildren(SettingsDialog)), what="Settings")
    return next(d for d in window.findChildren(SettingsDialog) if d.isVisible())


def type_into(qtbot: QtBot, field: QLineEdit, text: str) -> None:
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(field, text)


def shoot(widget: object, name: str) -> None:
    """Keep a picture of `widget` when MCP_DESK_SCREENSHOTS names a folder (to look at, not to compare)."""
    if folder := os.environ.get("MCP_DESK_SCREENSHOTS"):
        widget.grab().save(str(Path(folder) / f"{name}.png"))  # type: ignore[attr-defined]


def test_an_identity_provider_typed_in_settings_signs_in_to_the_organisations_server(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path
) -> None:
    save_settings(tmp_path / "settings.json", AppSettings(ModelSettings("openai/gpt-4o-mini"), provider="openai"))
    with organisation() as (idp, (server,)):
        oauth = {"grant": "enterprise", "clientId": CLIENT_ID, "clientSecret": "secret-0"}
        corp = {"type": "http", "url": server.url, "oauth": oauth}

        async def scenario(window: MainWindow) -> None:
            host = window.bridge.host
            await until(lambda: "corp" in host.connections, what="the server to start")
            assert host.sign_in.identity_provider is None
            dialog = await open_settings(window)
            group = dialog.sign_in
            assert group.isEnabled() and not dialog.apply.isEnabled(), "nothing changed yet"
            dialog.scroller.ensureWidgetVisible(group)
            type_into(qtbot, group.issuer, idp.issuer)
            assert dialog.apply.isEnabled()
            type_into(qtbot, group.client_id, IDP_CLIENT_ID)
            type_into(qtbot, group.client_secret, "idp-s3cret")
            shoot(dialog, "settings-organisation-sign-in")
            qtbot.mouseClick(dialog.apply, Qt.MouseButton.LeftButton)

            assert dialog.isVisible() and not dialog.apply.isEnabled(), "applied, the window stays; nothing new"
            assert dialog.error.text() == ""
            assert host.sign_in.identity_provider == IdentityProviderSettings(idp.issuer, IDP_CLIENT_ID, "idp-s3cret")
            saved = tmp_path / "settings.json"
            assert load_settings(saved).settings.identity_provider == IdentityProviderSettings(
                idp.issuer, IDP_CLIENT_ID, IDP_SECRET
            )
            assert "idp-s3cret" not in saved.read_text() and window.bridge.secrets is not None
            assert window.bridge.secrets.get(IDP_SECRET_NAME) == "idp-s3cret"
            assert group.client_secret.text() == "" and "stored" in group.client_secret.placeholderText()
            type_into(qtbot, group.client_id, "-typo")
            assert dialog.apply.isEnabled()
            group.client_id.setText(IDP_CLIENT_ID)
            assert not dialog.apply.isEnabled(), "back to what is in use: nothing to apply"
            dialog.reject()

            # The organisation's server: the sign-in goes through the identity provider typed above.
            browser = FollowingBrowser()
            host.sign_in.opener = browser
            panel = window.servers_panel
            # Its row is selected in the Servers panel (at times a moment after Settings applied: CI saw None).
            await until(lambda: panel.selected() == "corp", what="the server's row selected")
            sign_in = panel.findChild(QPushButton, "signIn")
            assert sign_in is not None
            await until(lambda: sign_in.isVisibleTo(panel), what="Sign in offered")
            qtbot.mouseClick(sign_in, Qt.MouseButton.LeftButton)
            await until(lambda: host.connection("corp").status.state is ServerState.READY, what="signed in")
            assert browser.opened[0].startswith(f"{idp.issuer}/authorize?")
            assert [form["grant_type"] for form in idp.requests.token] == [
                "authorization_code",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ]

        run(qapp, tmp_path, {"corp": corp}, scenario)


def test_an_identity_provider_the_policy_sets_is_shown_read_only_and_stays_in_use(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"identityProvider": {"issuer": "https://login.acme.example", "clientId": "desk"}}))
    monkeypatch.setenv("MCP_DESK_POLICY_FILE", str(policy))
    mine = IdentityProviderSettings("https://mine.example", "me")
    save_settings(
        tmp_path / "settings.json",
        AppSettings(ModelSettings("openai/gpt-4o-mini"), provider="openai", identity_provider=mine),
    )

    async def scenario(window: MainWindow) -> None:
        host = window.bridge.host
        policy_idp = IdentityProviderSettings("https://login.acme.example", "desk", source="policy")
        assert host.sign_in.identity_provider == policy_idp
        dialog = await open_settings(window)
        group = dialog.sign_in
        assert group.issuer.text() == "https://login.acme.example" and group.client_id.text() == "desk"
        assert all(not field.isEnabled() for field in (group.issuer, group.client_id, group.client_secret))
        assert str(policy) in group.note.text() and "identityProvider" in group.note.text()
        assert (
            group.issuer.toolTip() == "Set by your organisation's policy: https://login.acme.example (identityProvider)"
        )
        dialog.scroller.ensureWidgetVisible(group)
        shoot(dialog, "settings-organisation-sign-in-policy")
        buttons = dialog.findChild(QDialogButtonBox)
        assert buttons is not None
        qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
        await until(lambda: not dialog.isVisible(), what="Settings saved")
        assert host.sign_in.identity_provider == policy_idp, "the policy's stays in use"
        assert load_settings(tmp_path / "settings.json").settings.identity_provider == mine, "the user's is kept"

    run(qapp, tmp_path, {}, scenario)
