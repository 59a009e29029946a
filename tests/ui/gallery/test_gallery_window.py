"""The gallery and bundle installs in the real window: a registry on 127.0.0.1, real servers started.

A person opens the gallery, finds a server, gives it its secret, reads the exact command, agrees,
and sees its resources; drops a `.mcpb` on the window, gets the same and ends with Done. When the
registry is down the gallery says why, offers Try again and the ways in that need no registry, and
opens from its cache once it has one.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QLineEdit, QPushButton, QWidget

from desktop_app.core.registry.bundle import bundles_dir
from desktop_app.ui.gallery.bundle_dialog import BundleDialog
from desktop_app.ui.servers.server_editor import ServerEditor
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS
from tests.name_table import SOME_PUBLIC_ADDRESS, NameTable
from tests.servers.oauth_server import FollowingBrowser, OAuthTestServer
from tests.servers.registry_documents import (
    build_mcpb,
    bundle_entry,
    fixture_python_bundle,
    hello,
    populate,
    python_bundle_manifest,
    simple,
)
from tests.servers.registry_fixture import OFFICIAL, RegistryFixture, response, running_registry
from tests.ui.gallery.desk import consent, no_box_left, run_desk, until

pytestmark = LITELLM_WARNINGS
W = TypeVar("W", bound=QWidget)
HELLO = "io.github.mcp-desk-tests/hello"


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        yield fixture


@pytest.mark.stdio
def test_find_install_with_a_secret_and_see_its_resources(
    qapp: QApplication, tmp_path: Path, registry: RegistryFixture
) -> None:
    async def scenario(window: MainWindow) -> None:
        dialog = window.gallery.open_gallery()
        await until(lambda: dialog.list.count() == 3, what="the registry's list")
        assert dialog.registry.text() == f"Registry: {registry.url}"
        assert "1 server not shown" in dialog.status.text()  # the malformed entry, said once
        assert dialog.list.item(2).text().startswith("old-weather  0.1.0 · deprecated")
        dialog.search.setText("hello")
        await until(lambda: dialog.list.count() == 1 and "search=hello" in registry.requests[-1], what="search")
        pane = dialog.pane
        await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the details")
        assert pane.details.title.text() == "Hello" and "HELLO_TOKEN" in pane.details.body.text()
        pane.review.click()
        await until(lambda: pane.error.text() == "HELLO_TOKEN is required", what="the missing secret")
        token = pane.form.editor("HELLO_TOKEN")
        assert isinstance(token, QLineEdit)
        token.setText("tok-from-the-form")
        audience = pane.form.editor("audience")
        assert isinstance(audience, QLineEdit)
        audience.setText("Ada Lovelace")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card")
        card = consent(pane)
        assert card is not None
        assert card.command.toPlainText() == (
            f"{shutil.which('npx')} -y --registry {registry.npm_url} -- @mcp-desk-tests/hello@1.0.0 'Ada Lovelace'"
        )
        assert "HELLO_TOKEN=${secret:HELLO_TOKEN}" in (card.settings.toPlainText() if card.settings else "")
        assert "tok-from-the-form" not in card.command.toPlainText()
        # Sandboxed by default, reaching only the registry npx downloads it from (here on 127.0.0.1).
        assert card.sandbox is not None and card.sandbox.box.isChecked()
        assert card.sandbox.rights.text() == (
            "May write to: only its own temporary folders\n"
            "May connect to: 127.0.0.1 (npx downloads the package from it when the server first starts)"
        )
        card.install.click()
        await until(
            lambda: "is running" in pane.result.text(),
            timeout=90,
            what="the installed server running",
            seen=pane.result.text,
        )
        assert "1 resource" in pane.result.text()
        browser = window.resources.browser
        await until(lambda: browser.index_of("hello", "hello://greeting").isValid(), what="its resource listed")
        [content] = await window.bridge.host.read_resource("hello://greeting")
        assert content.text == "hello, Ada Lovelace"
        assert window.bridge.secrets is not None and window.bridge.secrets.get("HELLO_TOKEN") == "tok-from-the-form"
        assert dialog.list.item(0).text().startswith("Hello  1.0.0 · installed")

        # A newer version appears: the installed server gets an update badge, and updating asks again.
        registry.versions[HELLO][0]["_meta"][OFFICIAL]["isLatest"] = False
        registry.add(response(hello(registry, "1.1.0")))
        window.gallery.check_updates()
        panel = window.servers_panel
        await until(lambda: "update 1.1.0" in panel._item("hello").text(), what="the update badge")
        panel._list.setCurrentItem(panel._item("hello"))
        update = panel.findChild(QPushButton, "updateServer")
        assert update is not None and update.text() == "Update to 1.1.0…"
        update.click()
        await until(lambda: pane.details.subtitle.text().endswith("version 1.1.0"), what="the new version shown")
        assert pane.review.text() == "Review update from 1.0.0 to 1.1.0…"
        assert pane.form.answers() == {"audience": ("world",), "HELLO_GREETING": ("hello",)}  # token kept, not shown
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the update's consent card")
        card = consent(pane)
        assert card is not None and "update from 1.0.0" in card.origin.text()
        assert card.sandbox is not None and card.sandbox.box.isChecked()  # the entry's sandbox, kept
        card.install.click()
        await until(
            lambda: "is running" in pane.result.text(),
            timeout=60,
            what="the updated server running",
            seen=pane.result.text,
        )
        await until(lambda: "update" not in panel._item("hello").text(), what="the badge gone")
        dialog.close()

    config = run_desk(qapp, tmp_path, scenario, registry_url=registry.url)
    entry = json.loads(config.read_text())["mcpServers"]["hello"]
    assert entry["origin"]["version"] == "1.1.0" and "tok-from-the-form" not in config.read_text()
    assert entry["sandboxEnabled"] is True and entry["sandbox"] == {"network": {"allowedDomains": ["127.0.0.1"]}}


def test_unticking_the_sandbox_in_the_consent_saves_the_server_unsandboxed(
    qapp: QApplication, tmp_path: Path, registry: RegistryFixture
) -> None:
    async def scenario(window: MainWindow) -> None:
        dialog = window.gallery.open_gallery()
        await until(lambda: dialog.list.count() == 3, what="the registry's list")
        dialog.search.setText("hello")
        # The search's own result, not the full list's first row: a result landing later selects anew.
        await until(lambda: dialog.list.count() == 1 and "search=hello" in registry.requests[-1], what="search")
        pane = dialog.pane
        await until(lambda: pane.details.title.text() == "Hello" and pane.review.isEnabled(), what="the details")
        token = pane.form.editor("HELLO_TOKEN")
        assert isinstance(token, QLineEdit)
        token.setText("t")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card")
        card = consent(pane)
        assert card is not None and card.sandbox is not None
        warning = card.sandbox.without
        assert card.sandbox.box.text().startswith("Run it in the sandbox") and warning.isHidden()
        card.sandbox.box.click()  # the user unticks it: what that means is said in the caution colour
        assert not card.sandbox.box.isChecked() and not warning.isHidden() and card.sandbox.rights.isHidden()
        assert warning.text().startswith("Without the sandbox it runs with your permissions")
        card.install.click()
        await until(lambda: not card.open, what="the answer")
        assert card.outcome.text() == "You agreed, without the sandbox."
        # The install's last word, not "Added …, starting it": nothing is still starting when the window closes.
        await until(
            lambda: "'hello' is running" in pane.result.text(), timeout=60, what="it running", seen=pane.result.text
        )
        dialog.close()

    with no_box_left(qapp):
        config = run_desk(qapp, tmp_path, scenario, registry_url=registry.url)
    entry = json.loads(config.read_text())["mcpServers"]["hello"]
    # Off, with the rights it was offered kept (so an update knows the user chose to run it without).
    assert "sandboxEnabled" not in entry and entry["sandbox"] == {"network": {"allowedDomains": ["127.0.0.1"]}}


def test_declining_or_closing_installs_nothing(qapp: QApplication, tmp_path: Path, registry: RegistryFixture) -> None:
    async def scenario(window: MainWindow) -> None:
        dialog = window.gallery.open_gallery()
        await until(lambda: dialog.list.count() == 4, what="the registry's list")
        pane = dialog.pane
        token = pane.form.editor("HELLO_TOKEN")
        assert isinstance(token, QLineEdit)
        token.setText("x")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card")
        card = consent(pane)
        assert card is not None
        card.cancel.click()
        await until(lambda: card.outcome.text() == "Cancelled: nothing was installed.")
        await until(lambda: pane.install_box.isEnabled(), what="the form back")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card again")
        # Another server selected: the open card is withdrawn; a bundle whose download does not match
        # the registry's fileSha256 is refused before anything is unpacked.
        dialog.search.setText("fixture-bundle")
        await until(lambda: "checksum" in pane.problem.text(), what="the checksum refusal", seen=pane.problem.text)
        assert "does not match the registry's checksum" in pane.problem.text() and not pane.review.isEnabled()
        assert consent(pane) is None and not bundles_dir().exists()
        dialog.search.setText("hello")
        await until(lambda: pane.details.title.text() == "Hello" and pane.review.isEnabled(), what="hello again")
        token = pane.form.editor("HELLO_TOKEN")
        assert isinstance(token, QLineEdit)
        token.setText("x")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card once more")
        dialog.close()  # closing withdraws the open card: no
        await asyncio.sleep(0.2)

    registry.add(response(bundle_entry(registry, fixture_python_bundle(), sha="0" * 64)))
    config = run_desk(qapp, tmp_path, scenario, registry_url=registry.url)
    assert json.loads(config.read_text()) == {"mcpServers": {}}


@pytest.mark.qt_log_ignore("This plugin does not support grabbing")  # the offscreen import menu's popup
def test_registry_down_says_why_offers_other_ways_and_comes_back(
    qapp: QApplication, tmp_path: Path, registry: RegistryFixture
) -> None:
    registry.down = True  # down from the start: nothing is cached either

    async def scenario(window: MainWindow) -> None:
        dialog = window.gallery.open_gallery()
        view = dialog.unreachable
        await until(lambda: dialog.pages.currentWidget() is view, what="the unreachable page")
        said = f"MCP Desk asked {registry.url} for its servers. It answered HTTP 503 for /v0.1/servers."
        assert view.what.text() == said
        assert "Nothing is saved from an earlier visit" in view.hint.text()
        assert not dialog.status.isVisible() and not dialog.pane.isVisible()  # no "Select a server…"

        # Trying again while it is still down: it is asked again, and the page stays, ready for another try.
        asked = len(registry.requests)
        QTest.mouseClick(view.retry, Qt.MouseButton.LeftButton)
        assert view.retry.text() == "Trying again…" and not view.retry.isEnabled()
        await until(lambda: view.retry.isEnabled(), what="the second failure")
        assert len(registry.requests) > asked and dialog.pages.currentWidget() is view

        # The ways in that need no registry are the window's own menu entries.
        menus = window.menu_actions
        assert view.add_server.action is menus.add_server and view.add_server.text() == "&Add server…"
        assert view.install_bundle.action is menus.install_bundle and view.install_bundle.isEnabled()
        QTest.mouseClick(view.add_server, Qt.MouseButton.LeftButton)
        await until(lambda: visible(window, ServerEditor), what="the server editor")
        visible(window, ServerEditor)[0].close()
        QTest.mouseClick(view.install_bundle, Qt.MouseButton.LeftButton)
        await until(lambda: visible(window, QFileDialog), what="the bundle file chooser")
        [chooser] = visible(window, QFileDialog)
        assert chooser.windowTitle() == "Install an MCP bundle"
        chooser.close()
        QTest.mouseClick(view.import_from, Qt.MouseButton.LeftButton)
        await until(lambda: menus.import_from.isVisible(), what="the import menu")
        assert [a.text() for a in menus.import_from.actions()][-1] == "Other file…"
        menus.import_from.hide()

        # The registry answers again: Try again shows its list.
        registry.down = False
        QTest.mouseClick(view.retry, Qt.MouseButton.LeftButton)
        await until(lambda: dialog.list.count() == 3, what="the registry's list")
        assert dialog.pages.currentWidget() is dialog.splitter and dialog.pane.isVisible()
        dialog.close()

        # Down again: the list saved on the last visit, said to be that; a search never made has none.
        registry.down = True
        dialog = window.gallery.open_gallery()
        await until(lambda: dialog.status.text().startswith("Offline: "), what="the offline label")
        assert "answered HTTP 503" in dialog.status.text() and "Showing the list saved on" in dialog.status.text()
        assert dialog.list.count() == 3 and dialog.pages.currentWidget() is dialog.splitter
        assert dialog.retry.isVisible()
        QTest.mouseClick(dialog.retry, Qt.MouseButton.LeftButton)  # still down: the saved list again
        await until(lambda: dialog.list.count() == 3, what="the saved list again")
        assert dialog.status.text().startswith("Offline: ") and dialog.retry.isVisible()
        registry.down = False
        QTest.mouseClick(dialog.retry, Qt.MouseButton.LeftButton)  # back: the live list, no offline line
        await until(lambda: "1 server not shown" in dialog.status.text(), what="the live list")
        assert dialog.list.count() == 3 and not dialog.retry.isVisible()
        registry.down = True
        dialog.search.setText("never searched")
        await until(lambda: dialog.pages.currentWidget() is dialog.unreachable, what="the unreachable page")
        assert dialog.list.count() == 0
        dialog.close()

    run_desk(qapp, tmp_path, scenario, registry_url=registry.url)


def visible(window: MainWindow, kind: type[W]) -> list[W]:
    """The window's dialogs of `kind` on screen (they are its children)."""
    return [w for w in window.findChildren(kind) if w.isVisible()]


def test_remote_that_needs_sign_in_goes_through_the_sign_in(qapp: QApplication, tmp_path: Path) -> None:
    with OAuthTestServer().running() as oauth, running_registry() as registry:
        remote = {"type": "streamable-http", "url": oauth.url}
        registry.add(response(simple("io.github.acme/tracker", "Issues, hosted", remotes=[remote])))
        browser = FollowingBrowser()

        async def scenario(window: MainWindow) -> None:
            window.bridge.host.sign_in.opener = browser  # the test's browser instead of the system's
            dialog = window.gallery.open_gallery()
            await until(lambda: dialog.list.count() == 1, what="the registry's list")
            pane = dialog.pane
            await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the details")
            assert pane.choice.currentText() == f"Remote (HTTP): {oauth.url}"
            assert not pane.sign_in.isVisibleTo(pane)
            pane.review.click()
            await until(lambda: consent(pane) is not None, what="the consent card")
            card = consent(pane)
            assert card is not None and card.command.toPlainText() == oauth.url
            assert "will connect to this address. Install only" in card.findChild(QLabel, "consentWarning").text()
            card.install.click()
            await until(lambda: pane.sign_in.isVisibleTo(pane), what="the Sign in button", seen=pane.result.text)
            assert "asks you to sign in" in pane.result.text() and pane.sign_in.text() == "Sign in…"
            pane.sign_in.click()
            await until(lambda: "is running" in pane.result.text(), what="signed in", seen=pane.result.text)
            assert not pane.sign_in.isVisibleTo(pane) and "Signed in" in browser.pages[0]
            browser_tree = window.resources.browser
            await until(lambda: browser_tree.index_of("tracker", "auth://note").isValid(), what="its resource")
            dialog.close()

        config = run_desk(qapp, tmp_path, scenario, registry_url=registry.url)
    assert json.loads(config.read_text())["mcpServers"]["tracker"]["url"] == oauth.url


def drop_on(window: MainWindow, path: Path) -> None:
    """What the window receives when a file is dragged from a file manager onto the conversation."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    target = window.conversation
    enter = QDragEnterEvent(
        QPointF(target.rect().center()),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, enter)
    drop = QDropEvent(
        QPointF(target.rect().center()),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, drop)


def test_dropped_bundle_installs_runs_and_uninstalls(qapp: QApplication, tmp_path: Path) -> None:
    bundle = tmp_path / "fixture.mcpb"
    bundle.write_bytes(fixture_python_bundle())

    async def scenario(window: MainWindow) -> None:
        drop_on(window, bundle)
        await until(lambda: window.gallery.bundle_dialogs, what="the bundle window")
        dialog = window.gallery.bundle_dialogs[-1]
        assert isinstance(dialog, BundleDialog)
        pane = dialog.pane
        await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the manifest")
        assert pane.details.title.text() == "Fixture bundle"
        assert "python" in pane.details.body.text() and "echo" in pane.details.body.text()
        token = pane.form.editor("token")
        assert isinstance(token, QLineEdit) and token.echoMode() is QLineEdit.EchoMode.Password
        token.setText("bundle-secret")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card")
        card = consent(pane)
        assert card is not None
        folder = bundles_dir() / "fixture-bundle-1.0.0"
        python = shutil.which("python")  # the program as the app's PATH finds it, shown whole
        assert card.command.toPlainText() == f"{python} {folder}/server/fixture_server.py --secret-echo"
        assert not folder.exists()  # nothing unpacked before the yes
        assert dialog.finish.text() == "Close"  # closing now installs nothing
        assert card.sandbox is not None and card.sandbox.box.isChecked()  # and it runs sandboxed, from its folder
        assert card.sandbox.rights.text() == (
            "May write to: only its own temporary folders\nMay connect to: nothing (no network)"
        )
        card.install.click()
        await until(lambda: "is running" in pane.result.text(), timeout=60, what="the bundle's server running")
        assert (folder / "manifest.json").is_file()
        # One clear end: the form is gone, the outcome says it runs, and Done closes the window.
        assert not pane.install_box.isVisible() and dialog.finish.text() == "Done" and dialog.finish.isDefault()
        QTest.mouseClick(dialog.finish, Qt.MouseButton.LeftButton)
        await until(lambda: not window.gallery.bundle_dialogs, what="the bundle window closed")
        browser = window.resources.browser
        await until(lambda: browser.index_of("fixture-bundle", "fixture://long").isValid(), what="its resources")
        window.bridge.remove_server("fixture-bundle")
        await until(lambda: not folder.exists(), what="the bundle's files removed")
        assert "fixture-bundle" not in window.bridge.host.connections

    config = run_desk(qapp, tmp_path, scenario, registry_url="https://registry.invalid")
    assert json.loads(config.read_text()) == {"mcpServers": {}}


def test_unsafe_bundle_is_refused_whole(qapp: QApplication, tmp_path: Path) -> None:
    bundle = tmp_path / "evil.mcpb"
    bundle.write_bytes(build_mcpb(python_bundle_manifest(), {"server/fixture_server.py": b"", "../../evil": b"x"}))

    async def scenario(window: MainWindow) -> None:
        drop_on(window, bundle)
        await until(lambda: window.gallery.bundle_dialogs, what="the bundle window")
        pane = window.gallery.bundle_dialogs[-1].pane
        await until(lambda: "cannot be installed" in pane.placeholder.text(), what="the refusal")
        assert "would be written outside its folder" in pane.placeholder.text()
        window.gallery.bundle_dialogs[-1].close()

    config = run_desk(qapp, tmp_path, scenario, registry_url="https://registry.invalid")
    assert json.loads(config.read_text()) == {"mcpServers": {}}
    assert not bundles_dir().exists()


def test_a_public_registrys_remote_that_resolves_here_is_not_saved(qapp: QApplication, tmp_path: Path) -> None:
    """The registry is served on 127.0.0.1 and read as `localhost`, which the resolver (a table, never DNS)
    places on the internet; its entry names evil.example, which resolves to 127.0.0.1."""
    hosts = NameTable(localhost=SOME_PUBLIC_ADDRESS, evil_example="127.0.0.1")
    with running_registry() as registry:
        remote = {"type": "streamable-http", "url": "https://evil.example/mcp"}
        registry.add(response(simple("io.github.evil/inside", "Inside", remotes=[remote])))
        public = registry.url.replace("127.0.0.1", "localhost")

        async def scenario(window: MainWindow) -> None:
            window.gallery.resolve = hosts
            dialog = window.gallery.open_gallery()
            await until(lambda: dialog.list.count() == 1, what="the registry's list")
            pane = dialog.pane
            await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the details")
            assert pane.choice.currentText() == "Remote (HTTP): https://evil.example/mcp"
            pane.review.click()
            await until(lambda: bool(pane.error.text()), what="the refusal")
            assert pane.error.text() == (
                f"the server's address is refused: the registry {public.split('//')[1]} may not point at this"
                " computer or your network (evil.example resolves to 127.0.0.1, which is on this computer or your"
                " local network; not connected)"
            )
            assert consent(pane) is None and "inside" not in window.bridge.host.connections
            dialog.close()

        config = run_desk(qapp, tmp_path, scenario, registry_url=public)
    assert hosts.asked == ["localhost", "evil.example"]
    assert not config.exists() or "evil.example" not in config.read_text()
