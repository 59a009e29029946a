"""Servers → Add from a domain… in the real window: a domain on 127.0.0.1 with its catalog, card and MCP server.

A person types the domain, sees its server with the card's details, gives the secret header, reads the
exact URL and headers, agrees, and sees the server running with where its card was wrong. A domain
written to mislead shows its text escaped and its other-host address called out, and an address it
may not use cannot be chosen.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QLineEdit

from desktop_app.ui.gallery.domain_dialog import DomainDialog
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS
from tests.name_table import NameTable
from tests.servers.card_domain import CATALOG_PATH, CardDomain, Served, card, catalog, entry, running_domain
from tests.ui.gallery.desk import consent, run_desk, until

pytestmark = LITELLM_WARNINGS


@pytest.fixture
def domain() -> Iterator[CardDomain]:
    with running_domain() as served:
        yield served


def open_from_menu(window: MainWindow) -> DomainDialog:
    [servers_menu] = [a.menu() for a in window.menuBar().actions() if a.text() == "&Servers"]
    texts = [a.text() for a in servers_menu.actions()]
    assert texts[texts.index("Install &bundle (.mcpb)…") + 1] == "Add from a &domain…"
    [action] = [a for a in servers_menu.actions() if a.text() == "Add from a &domain…"]
    assert isinstance(action, QAction) and action.isEnabled()
    action.trigger()
    dialog = window.gallery.domains.dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


@pytest.mark.stdio
def test_discover_install_connect_and_see_the_card_mismatch(
    qapp: QApplication, tmp_path: Path, domain: CardDomain
) -> None:
    async def scenario(window: MainWindow) -> None:
        dialog = open_from_menu(window)
        dialog.domain.setText(domain.host)
        dialog.look_up.click()
        await until(lambda: dialog.list.count() == 1, what="the domain's server", seen=dialog.status.text)
        assert dialog.status.text().startswith(f"{domain.host} describes 1 server (")
        assert dialog.list.item(0).text() == "Weather  2.0.0\nForecasts for any city."
        pane = dialog.pane
        await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the card's details")
        assert pane.details.title.text() == "Weather"
        assert pane.details.subtitle.text() == "io.example/weather · version 2.0.0"
        assert f"{domain.url}/mcp?region={{region}}" in pane.details.body.text()
        assert pane.choice.currentText() == f"Streamable HTTP: {domain.url}/mcp?region={{region}}"
        key = pane.form.editor("X-Api-Key")
        assert isinstance(key, QLineEdit) and key.echoMode() == QLineEdit.EchoMode.Password
        key.setText("key-from-the-form")
        pane.review.click()
        await until(lambda: consent(pane) is not None, what="the consent card", seen=pane.error.text)
        card_ = consent(pane)
        assert card_ is not None
        assert card_.command.toPlainText() == f"{domain.url}/mcp?region=eu"
        assert card_.settings is not None and card_.settings.toPlainText() == "X-Api-Key: ${secret:WEATHER_X-API-KEY}"
        assert f"Server Card io.example/weather 2.0.0 on {domain.host}" in card_.origin.text()
        card_.install.click()
        await until(lambda: "is running" in pane.result.text(), timeout=60, what="running", seen=pane.result.text)
        await until(lambda: pane.check.isVisible(), what="the card check")
        assert pane.check.text().splitlines() == [
            "Its card and the server disagree (what the server says counts):",
            "• name: the card says io.example/weather, the server says weather-server",
            "• version: the card says 2.0.0, the server says 1.0.0",
            "• title: the card says Weather, the server says Weather (beta)",
        ]
        assert domain.mcp_headers[-1]["x-api-key"] == "key-from-the-form"
        await until(lambda: dialog.list.item(0).text().startswith("Weather  2.0.0 · installed"), what="the badge")
        [content] = await window.bridge.host.read_resource("weather://today")
        assert content.text == "sunny"

        # The same server again: it is an update of the entry the card installed.
        dialog.look_up.click()
        await until(lambda: pane.review.text() == "Review reinstall of 2.0.0…", what="the reinstall offer")
        dialog.close()

    config = run_desk(qapp, tmp_path, scenario)
    entry = json.loads(config.read_text())["mcpServers"]["weather"]
    assert entry["origin"]["domain"] == domain.host and entry["headers"] == {"X-Api-Key": "${secret:WEATHER_X-API-KEY}"}


def test_a_misleading_domain_shows_its_text_escaped_and_its_other_host(
    qapp: QApplication, tmp_path: Path, domain: CardDomain
) -> None:
    remotes = [
        {"type": "streamable-http", "url": "http://example.com/mcp"},
        {"type": "sse", "url": "http://127.0.0.2:9/sse"},
    ]
    title = "Weather\u202e<b>bold</b>\x1b[2J"
    domain.files["/cards/weather"] = Served(card(domain, title=title, remotes=remotes))

    async def scenario(window: MainWindow) -> None:
        dialog = window.gallery.domains.open_dialog(domain.host)
        await until(lambda: dialog.list.count() == 1, what="the domain's server", seen=dialog.status.text)
        assert dialog.list.item(0).text().startswith("Weather\\u202e<b>bold</b>\\x1b[2J  2.0.0")
        pane = dialog.pane
        await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the card's details")
        assert pane.details.title.text() == "Weather\\u202e<b>bold</b>\\x1b[2J"  # plain text: no bold, no reordering
        body = pane.details.body.text()
        assert "this address is refused: plain http is opened only on this computer" in body
        assert "this address is on 127.0.0.2:9, not on" in body
        model = pane.choice.model()
        assert not model.item(0).isEnabled() and model.item(1).isEnabled()  # type: ignore[attr-defined]
        assert pane.choice.currentIndex() == 1 and pane.review.isEnabled()
        dialog.close()

    run_desk(qapp, tmp_path, scenario)


def test_a_public_domains_card_naming_a_host_that_resolves_here_is_not_saved(
    qapp: QApplication, tmp_path: Path, domain: CardDomain
) -> None:
    """cards.example is on the internet: its catalog and card are what the window read earlier (cached,
    fresh). Its card names evil.example, which resolves to 127.0.0.1: the entry is refused before the consent."""
    hosts = NameTable(evil_example="127.0.0.1")
    origin = "https://cards.example"
    port = domain.url.rsplit(":", 1)[1]
    remotes = [{"type": "streamable-http", "url": f"https://evil.example:{port}/mcp"}]

    async def scenario(window: MainWindow) -> None:
        controller = window.gallery.domains
        controller.resolve = hosts
        fresh = "public, max-age=3600"
        controller.cache.save(
            f"{origin}{CATALOG_PATH}", json.dumps(catalog(entry(f"{origin}/card"))).encode(), None, fresh
        )
        controller.cache.save(f"{origin}/card", json.dumps(card(domain, remotes=remotes)).encode(), None, fresh)
        dialog = controller.open_dialog("cards.example")
        await until(lambda: dialog.list.count() == 1, what="the domain's server", seen=dialog.status.text)
        pane = dialog.pane
        await until(lambda: pane.pages.currentWidget() is pane.scroller, what="the card's details")
        assert pane.review.isEnabled()
        pane.review.click()
        await until(lambda: bool(pane.error.text()), what="the refusal")
        assert pane.error.text() == (
            "the server's address is refused: cards.example may not point at this computer or your network"
            " (evil.example resolves to 127.0.0.1, which is on this computer or your local network; not connected)"
        )
        assert consent(pane) is None and "evil" not in window.bridge.host.connections
        assert hosts.asked == ["evil.example"] and domain.requests == [] and domain.mcp_headers == []
        dialog.close()

    config = run_desk(qapp, tmp_path, scenario)
    assert not config.exists() or "evil.example" not in config.read_text()
