"""The gallery's unreachable page in plain words for a registry that refuses connections, and its ways
in following the window's actions (greyed with the reason, as the menu is)."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from desktop_app.core.registry.client import RegistryClient, RegistryError
from desktop_app.ui.gallery.unreachable_view import UnreachableView
from tests.window_kit import run_in_qt


def refused_error(qapp: QApplication) -> tuple[str, str]:
    """A registry address on 127.0.0.1 where nothing listens, and what the client says of it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"  # bound, never listening: connections are refused

        async def ask() -> str:
            with pytest.raises(RegistryError) as failed:
                await RegistryClient(url).list_servers()
            return str(failed.value)

        return url, run_in_qt(qapp, ask())


def test_a_refusing_registry_is_named_and_the_ways_in_follow_the_window(qapp: QApplication) -> None:
    url, error = refused_error(qapp)
    view = UnreachableView()
    view.resize(900, 560)
    view.show_failure(url, error)
    assert view.what.text().startswith(f"MCP Desk asked {url} for its servers. It cannot be reached (")
    assert not view.ways.isVisibleTo(view)  # nothing to point at until the window offers its entries

    host = QWidget()
    menus = SimpleNamespace(
        add_server=QAction("&Add server…", host),
        install_bundle=QAction("Install &bundle (.mcpb)…", host),
        import_from=QMenu("&Import from", host),
    )
    added: list[bool] = []
    menus.add_server.triggered.connect(lambda: added.append(True))
    view.offer(menus)
    view.show()
    assert view.ways.isVisible() and view.install_bundle.isEnabled()
    QTest.mouseClick(view.add_server, Qt.MouseButton.LeftButton)
    assert added == [True]
    # The organisation switches bundles off: the button greys with the menu entry, and says why.
    menus.install_bundle.setEnabled(False)
    menus.install_bundle.setToolTip("Bundles are switched off by your organisation")
    assert not view.install_bundle.isEnabled()
    assert view.install_bundle.toolTip() == "Bundles are switched off by your organisation"

    retried: list[bool] = []
    view.sig_retry.connect(lambda: retried.append(True))
    QTest.mouseClick(view.retry, Qt.MouseButton.LeftButton)
    assert retried == [True] and view.retry.text() == "Trying again…" and not view.retry.isEnabled()
    view.show_failure(url, error)
    assert view.retry.isEnabled() and view.retry.text() == "Try again"
    view.close()
