"""The organisation's policy in the whole window: a blocked server's row says so and it never starts,
every call is asked, app views, bundles and other registries are off, and what the policy sets is
read-only in Settings; each greyed thing says which rule greyed it."""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLabel, QMessageBox

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_status import ServerState
from desktop_app.ui.apps.controller import AppSlot
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.tool_card import ToolCard
from desktop_app.ui.gallery.bundle_dialog import BundleDialog
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FIXTURE_SCRIPT, eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.app_server import PROBE_URI
from tests.servers.registry_documents import populate
from tests.servers.registry_fixture import running_registry
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS
APP_SERVER = Path(__file__).parents[2] / "servers" / "app_server.py"
BLOCKED = "Blocked by your organisation's policy"
until = functools.partial(eventually, timeout=30.0)


def shoot(widget: object, name: str) -> None:
    """Keep a picture of `widget` when MCP_DESK_SCREENSHOTS names a folder (to look at, not to compare)."""
    if folder := os.environ.get("MCP_DESK_SCREENSHOTS"):
        widget.grab().save(str(Path(folder) / f"{name}.png"))  # type: ignore[attr-defined]


def test_the_window_follows_the_policy(qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    servers = {
        "apps": {"command": sys.executable, "args": [str(APP_SERVER)]},
        "marker": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').write('ran')"]},
    }
    with ScriptedLLM() as llm, running_registry() as registry:
        populate(registry)
        policy = {
            "servers": {"allow": [{"command": sys.executable, "args": [str(APP_SERVER)]}]},
            "registry": registry.url,
            "features": {"bundles": False, "apps": False},
            "approvals": {"everyCall": True},
        }
        (tmp_path / "policy.json").write_text(json.dumps(policy, indent=2))
        monkeypatch.setenv("MCP_DESK_POLICY_FILE", str(tmp_path / "policy.json"))
        model = ModelSettings("openai/scripted", api_base=llm.url)
        settings = AppSettings(model, provider="compatible", registry_url="https://mine.example")

        async def steps(window: MainWindow) -> None:
            window.resize(1280, 800)
            await scenario(window, llm, registry.url, tmp_path)

        run_window_scenario(qapp, tmp_path, steps, servers=servers, settings=settings)
    assert not marker.exists()


async def scenario(window: MainWindow, llm: ScriptedLLM, registry: str, tmp_path: Path) -> None:
    host, panel = window.bridge.host, window.servers_panel
    await until(lambda: host.ready_count() == 1, what="the allowed server")
    await until(lambda: host.connection("marker").status.state is ServerState.FAILED, what="the blocked one")

    # The blocked server's row: greyed, what blocked it, no Restart.
    rows = panel._list
    row = next(rows.item(i) for i in range(rows.count()) if rows.item(i).text().startswith("marker"))
    assert row.text() == "marker  —  blocked by your organisation"
    assert row.font().italic() and row.toolTip().startswith(f"{BLOCKED}: 'marker' is not on the list of servers")
    assert row.toolTip().endswith(
        "(servers.allow[0]). MCP Desk does not start it: ask your administrator if you need it."
    )
    rows.setCurrentItem(row)
    assert not panel.details.restart.isEnabled() and "only with the arguments" in panel.details.restart.toolTip()
    assert panel.details.state.text() == f"{BLOCKED}: servers.allow[0]"
    assert "only with the arguments" in panel.details.state.toolTip()
    assert panel.details.remove.isEnabled()  # the user's own entry: theirs to remove or fix
    shoot(window.servers_dock, "policy-servers-panel")

    # Every call is asked: the card greys the standing answers; the tool's app view is not made.
    llm.queue(calls(ToolCall("apps__probe", {"steps": []}, id="call_probe")), text("Done."))
    window.composer.editor.setPlainText("Run the probe")
    window.composer.send()
    await until(lambda: window.findChildren(ApprovalPanel), timeout=120, what="the approval")
    [approval] = window.findChildren(ApprovalPanel)
    assert not approval.allow_chat.isEnabled() and not approval.allow_always.isEnabled()
    assert approval.managed.text().startswith(f"{BLOCKED}: every tool call needs your approval")
    shoot(window, "policy-window-approval")
    approval.allow_once.click()
    card = next(c for c in window.conversation.findChildren(ToolCard) if c.call_id == "call_probe")
    await until(lambda: card.findChildren(QLabel, "appsOff"), what="the note that app views are off")
    [note] = card.findChildren(QLabel, "appsOff")
    assert note.text() == (f"This tool's app view is not shown. {BLOCKED}: app views are switched off (features.apps).")
    assert card.findChildren(AppSlot) == [] and window.apps.views == []
    await until(lambda: not window.chat.busy, what="the answer")
    shoot(window, "policy-window-apps-off")
    from_browser = window.apps.view_for_resource(ResourceRef("apps", PROBE_URI, "probe"))
    assert isinstance(from_browser, QLabel) and from_browser.text().startswith("App views are not shown. Blocked")
    from_browser.deleteLater()

    # Bundles: the menu entry is greyed with why; a bundle dropped anyway is not even opened.
    bundles_off = "blocked by your organisation's policy: bundles (.mcpb files) cannot be installed (features.bundles)"
    assert not window.menu_actions.install_bundle.isEnabled()
    assert window.menu_actions.install_bundle.toolTip() == f"B{bundles_off[1:]}"
    dialog = window.gallery.open_bundle(tmp_path / "dropped.mcpb")  # no such file: reading it would fail otherwise
    assert isinstance(dialog, BundleDialog)
    assert dialog.pane.placeholder.text() == f"dropped.mcpb cannot be installed: {bundles_off}."
    shoot(dialog, "policy-bundle-refused")
    dialog.close()

    # The gallery reads the pinned registry, not the user's, and cannot be pointed elsewhere.
    window.menu_actions.find_servers.trigger()
    gallery = window.gallery.dialog
    assert gallery is not None
    await until(lambda: gallery.list.count() > 0, what="the pinned registry's servers")
    assert gallery.registry.text() == f"Registry: {registry}"
    assert not gallery.change.isEnabled()
    assert gallery.change.toolTip() == f"Set by your organisation's policy: {registry} (registry)"
    shoot(gallery, "policy-gallery")
    gallery.close()

    # Settings: the registry is shown as the policy sets it, read-only, and saving keeps the user's own.
    window.menu_actions.settings.trigger()
    await until(lambda: any(d.isVisible() for d in window.findChildren(SettingsDialog)), what="Settings")
    settings = next(d for d in window.findChildren(SettingsDialog) if d.isVisible())
    assert settings.registry.text() == registry and not settings.registry.isEnabled()
    assert settings.registry.toolTip() == f"Set by your organisation's policy: {registry} (registry)"
    shoot(settings, "policy-settings")
    button_box = settings.findChild(QDialogButtonBox)
    assert button_box is not None
    button_box.button(QDialogButtonBox.StandardButton.Save).click()
    await until(lambda: not settings.isVisible(), what="Settings saved")
    assert window.chat.settings.registry_url == "https://mine.example"


@pytest.mark.stdio
def test_a_policy_that_cannot_be_followed_is_said_once_and_blocks_nothing(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text('{\n  "servers": {"allow": [{"command": "npx", "argz": []}]}\n}')
    monkeypatch.setenv("MCP_DESK_POLICY_FILE", str(policy))

    async def steps(window: MainWindow) -> None:
        await until(lambda: window.bridge.host.ready_count() == 1, what="fx, which nothing blocks")
        notices = [b.text() for b in window.findChildren(QMessageBox) if b.isVisible()]
        assert notices == [
            "Your organisation's policy could not be read, so it blocks nothing:\n\n"
            f"{policy}, line 2: servers.allow[0].argz: is not a policy setting (known here: registry, url,"
            " command, args)"
        ]

    run_window_scenario(
        qapp, tmp_path, steps, servers={"fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}}
    )


def test_a_server_the_converged_file_blocks_is_greyed_with_its_rule(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    script = f"open({str(marker)!r}, 'w').write('ran')"
    servers = {
        "fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]},
        "marker": {"command": sys.executable, "args": ["-c", script]},
    }
    lists = {
        "allowedMcpServers": [{"serverCommand": [sys.executable, str(FIXTURE_SCRIPT)]}, {"serverName": "marker"}],
        "deniedMcpServers": [{"serverCommand": [sys.executable, "-c", script]}],
    }
    (tmp_path / "managed-mcp.json").write_text(json.dumps(lists, indent=2))
    monkeypatch.setenv("MCP_DESK_MANAGED_MCP_FILE", str(tmp_path / "managed-mcp.json"))

    async def steps(window: MainWindow) -> None:
        host, panel = window.bridge.host, window.servers_panel
        await until(lambda: host.ready_count() == 1, what="fx, which the list allows")
        await until(lambda: host.connection("marker").status.state is ServerState.FAILED, what="the denied one")
        rows = panel._list
        row = next(rows.item(i) for i in range(rows.count()) if rows.item(i).text().startswith("marker"))
        assert row.text() == "marker  —  blocked by your organisation"  # shown, never hidden
        assert row.font().italic()
        assert row.toolTip() == (
            f"{BLOCKED}: 'marker' is on the list of denied servers (command {sys.executable} -c {script})"
            " (deniedMcpServers[0]). MCP Desk does not start it: ask your administrator if you need it."
        )
        rows.setCurrentItem(row)
        assert panel.details.state.text() == f"{BLOCKED}: deniedMcpServers[0]"
        assert not panel.details.restart.isEnabled()
        shoot(window.servers_dock, "policy-converged-servers-panel")

    run_window_scenario(qapp, tmp_path, steps, servers=servers)
    assert not marker.exists()
