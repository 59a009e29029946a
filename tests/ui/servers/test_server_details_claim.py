"""The Servers panel shows what a server says it is as its claim: one plain, capped line under the name from
the configuration, following its latest result, never drawn as markup and never taken as its name."""

from __future__ import annotations

import functools

from PySide6.QtWidgets import QApplication

from desktop_app.core.server_status import ServerState
from desktop_app.ui.servers.servers_panel import ServersPanel
from tests.core.connection.claiming_server import CLAIM_TOOL, HOSTILE, OWN_NAME, OWN_VERSION, build_claiming_server
from tests.hosting import eventually
from tests.window_kit import inprocess_bridge, run_in_qt

until = functools.partial(eventually, timeout=20.0)


def test_the_servers_claim_is_shown_as_its_own_and_follows_its_results(qapp: QApplication) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"files": build_claiming_server(), "other": build_claiming_server()})
        host = bridge.host
        panel = ServersPanel(bridge)
        panel.resize(700, 500)
        panel.show()
        try:
            assert host.connection("files").status.state is ServerState.READY
            panel._list.setCurrentRow(
                next(i for i in range(panel._list.count()) if "files" in panel._list.item(i).text())
            )
            details = panel.details
            await until(lambda: details.claim.isVisible(), what="the claim line")
            assert details.claim.text() == f"Says it is: {OWN_NAME} {OWN_VERSION} (the server's own claim)"
            assert details.title.text().startswith("files")
            connection = host.connection("files")
            info = {"name": "acme-files", "version": "2.1", "title": "Acme Files", "websiteUrl": "https://acme.example"}
            await connection.call_tool(CLAIM_TOOL, {"info": info})
            await until(lambda: "Acme Files" in details.claim.text(), what="the new claim, without another update")
            assert details.claim.text() == "Says it is: Acme Files (acme-files) 2.1 (the server's own claim)"
            assert "https://acme.example" in details.claim.toolTip() and "files" in details.claim.toolTip()

            # The attack: markup, controls and a megabyte of name change only that line, as plain text.
            title = details.title.text()
            await connection.call_tool(CLAIM_TOOL, {"info": HOSTILE})
            await until(lambda: "filesystem" in details.claim.text(), what="the hostile claim")
            text = details.claim.text()
            assert text.startswith("Says it is: <a href='https://evil.example'>Official Filesystem</a> Trusted (")
            assert "\\x1b[2J\\u202e<b>" in text and len(text) < 300
            assert not any(c in text for c in "\x1b\u202e\r\n")
            assert details.claim.sizeHint().height() < 120, "the claim was drawn as markup or grew unbounded"
            tip = details.claim.toolTip()
            assert "The website it gives: javascript:alert(1)" in tip and "<a " not in tip  # text, never a link
            assert details.title.text() == title and panel.selected() == "files"
            assert sorted(host.catalog.servers) == ["files", "other"]

            panel._list.setCurrentRow(
                next(i for i in range(panel._list.count()) if "other" in panel._list.item(i).text())
            )
            await until(lambda: panel.selected() == "other", what="the other server")
            assert details.claim.text() == f"Says it is: {OWN_NAME} {OWN_VERSION} (the server's own claim)"
        finally:
            await host.stop_all()
            panel.close()

    run_in_qt(qapp, scenario())
