"""The servers panel shows a server's words as text: no markup drawn, no control characters obeyed."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QLabel, QToolTip

from desktop_app.bridge import CoreBridge
from desktop_app.core.host import ServerHost
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.core.server_status import ServerState
from desktop_app.ui.servers.servers_panel import ServersPanel
from tests.hosting import eventually
from tests.servers.escape_server import CONTROLS, MARKUP_VERSION
from tests.window_kit import run_in_qt

ESCAPE_SCRIPT = Path(__file__).resolve().parents[2] / "servers" / "escape_server.py"
until = functools.partial(eventually, timeout=20.0)


def test_a_servers_version_and_stderr_show_as_plain_text(qapp: QApplication) -> None:
    async def scenario() -> None:
        host = ServerHost(policy=RestartPolicy(max_attempts=0))
        panel = ServersPanel(CoreBridge(host))
        panel.resize(700, 500)
        panel.show()
        config = ServerConfig(
            name="esc", transport=TransportKind.STDIO, command=sys.executable, args=(str(ESCAPE_SCRIPT),)
        )
        host.start([config])
        try:
            await until(lambda: host.connection("esc").status.state is ServerState.READY, what="the server")
            panel._list.setCurrentRow(0)
            await until(lambda: "starting" in panel._log.toPlainText(), what="the stderr line in the log")
            # The version is shown as the characters it is, one line high, not as a 900×600 picture.
            assert panel.details.title.text().endswith(MARKUP_VERSION)
            assert panel.details.title.sizeHint().height() < 100
            log = panel._log.toPlainText()
            assert not [c for c in CONTROLS if c in log], repr(log)
            assert "starting\\x1b]52;c;" in log and "\\r\\x1b[2K\\x1b[1A\\u202eready" in log
        finally:
            await host.stop_all()
            panel.close()

    run_in_qt(qapp, scenario())


def test_a_failure_reason_in_markup_shows_as_text_in_the_rows_tooltip(qapp: QApplication) -> None:
    async def scenario() -> None:
        host = ServerHost(policy=RestartPolicy(max_attempts=0))
        panel = ServersPanel(CoreBridge(host))
        panel.resize(700, 500)
        panel.show()
        config = ServerConfig(
            name="esc", transport=TransportKind.STDIO, command=sys.executable, args=(str(ESCAPE_SCRIPT), "--refuse")
        )
        host.start([config])
        try:
            await until(lambda: host.connection("esc").status.state is ServerState.FAILED, what="the failure")
            await until(lambda: MARKUP_VERSION in panel._list.item(0).toolTip(), what="the reason in the tooltip")
            view = panel._list
            where = view.visualItemRect(view.item(0)).center()
            event = QHelpEvent(QEvent.Type.ToolTip, where, view.viewport().mapToGlobal(where))
            QApplication.sendEvent(view.viewport(), event)
            await until(lambda: _tooltip() is not None, what="the tooltip")
            tip = _tooltip()
            assert tip is not None and "&lt;img" in tip.text()
            assert tip.sizeHint().height() < 200, "the server's markup was drawn"
        finally:
            QToolTip.hideText()
            await host.stop_all()
            panel.close()

    run_in_qt(qapp, scenario())


def _tooltip() -> QLabel | None:
    shown = [w for w in QApplication.topLevelWidgets() if w.inherits("QTipLabel") and w.isVisible()]
    return shown[0] if shown and isinstance(shown[0], QLabel) else None
