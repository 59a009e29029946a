"""A reopened chat shows everything the user saw: the form a server asked for (and what was sent), an app
view's own tool call, how it was settled and what it returned, and a still of the app view, saying it is
one. Real servers (the asking server, the app server), a scripted model, the real window and real clicks."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.chat.approval import Requester
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.asks.form_card import FormCard
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.record_cards import STILL_NOTE, AppStill, QuestionRecordCard
from desktop_app.ui.shell.main_window import MainWindow
from tests.core.asks.hosting import ASKING_SCRIPT
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.app_server import PROBE_URI
from tests.ui.apps.probe_reports import APP_SERVER, reported
from tests.ui.chat_window import shown, until
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS


async def allow(qtbot: QtBot, window: MainWindow, requester: Requester) -> None:
    def waiting() -> list[ApprovalPanel]:  # shown: a panel may wait for its call's card before it is
        pending = [p for p in window.asker.pending if isinstance(p, ApprovalPanel) and p.isVisible()]
        return [p for p in pending if p.request.requester is requester]

    pending = lambda: str([type(c).__name__ for c in window.asker.pending])  # noqa: E731
    await until(waiting, timeout=120, what=f"the {requester} approval", seen=pending)
    qtbot.mouseClick(waiting()[0].allow_once, Qt.MouseButton.LeftButton)


def app_lines(window: MainWindow) -> list[tuple[str, str]]:
    """The app's own calls and their results under the tool cards, in the chat's order."""
    layout = window.conversation._layout
    labels = [w for w in shown(window, QLabel) if w.objectName() in ("appCallRecord", "appCallResult")]
    return [(w.objectName(), w.text()) for w in sorted(labels, key=layout.indexOf)]


@pytest.mark.stdio
def test_a_reopened_chat_shows_its_form_its_app_call_and_a_still_of_its_app(
    qapp: QApplication, qtbot: QtBot, tmp_path: Path, llm: ScriptedLLM
) -> None:
    servers = {
        "asking": {"command": sys.executable, "args": [str(ASKING_SCRIPT)], "protocol": "legacy"},
        "apps": {"command": sys.executable, "args": [str(APP_SERVER)]},
    }
    settings = AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible")

    async def scenario(window: MainWindow) -> None:
        llm.queue(calls(ToolCall("asking__ask_form", {}, id="call_form")), text("Thanks, Ada."))
        qtbot.keyClicks(window.composer.editor, "Register me")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await allow(qtbot, window, Requester.MODEL)
        await until(lambda: [c for c in window.asker.pending if isinstance(c, FormCard)], what="the form")
        [form] = [c for c in window.asker.pending if isinstance(c, FormCard)]
        qtbot.keyClicks(form.editors["name"].widget, "Ada")
        qtbot.keyClicks(form.editors["email"].widget, "ada@example.com")
        qtbot.mouseClick(form.submit, Qt.MouseButton.LeftButton)
        await until(lambda: not window.chat.busy, what="the form's turn")

        llm.queue(calls(ToolCall("apps__probe", {"steps": ["call:bump"]}, id="call_probe")), text("Probed."))
        qtbot.keyClicks(window.composer.editor, "Show me the probe")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await allow(qtbot, window, Requester.MODEL)
        await allow(qtbot, window, Requester.APP)  # the view asks to run `bump`
        await until(lambda: reported(window, "done"), timeout=120, what="the probe's steps")
        await until(lambda: not window.chat.busy, what="the probe's turn")
        calls_shown = app_lines(window)
        assert calls_shown == [
            ("appCallRecord", f"The app {PROBE_URI} called bump on apps with {{}}: allowed by you"),
            ("appCallResult", "bump returned: bumped 1"),
        ], "under the probe's card: the app's call, then what it returned"

        chat_id = window.chat.conversation.id
        window.menu_actions.new_chat.trigger()  # the chat is left: a still of its app is kept
        rows = window.history.list
        [row] = [rows.item(i) for i in range(rows.count()) if rows.item(i).data(Qt.ItemDataRole.UserRole) == chat_id]
        qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=rows.visualItemRect(row).center())
        await until(lambda: window.chat.conversation.id == chat_id, what="the chat reopened")
        await until(lambda: shown(window, QuestionRecordCard), what="the chat drawn again")

        [record] = shown(window, QuestionRecordCard)
        layout = window.conversation._layout
        assert layout.indexOf(record) == layout.indexOf(window.conversation.card("call_form")) + 1
        assert record.record.title == "Please fill in this form" and record.record.outcome == "Sent to asking"
        assert ("Name", "Ada") in record.record.details and ("Email", "ada@example.com") in record.record.details
        assert ("Favourite colour", "Green") in record.record.details, "a choice as it was offered"
        assert app_lines(window) == calls_shown
        probe = window.conversation.card("call_probe")
        assert probe is not None
        [call_line, result_line] = [w for w in shown(window, QLabel) if w.objectName().startswith("appCall")]
        assert layout.indexOf(call_line) == layout.indexOf(probe) + 1
        assert layout.indexOf(result_line) == layout.indexOf(probe) + 2
        [still] = probe.findChildren(AppStill)
        assert still.note.text().startswith(STILL_NOTE) and not still.picture.pixmap().isNull()
        window.grab().save(str(tmp_path / "reopened-form.png"))
        window.conversation.verticalScrollBar().setValue(window.conversation.verticalScrollBar().maximum())
        await asyncio.sleep(0.1)  # painted at the bottom
        window.grab().save(str(tmp_path / "reopened-app.png"))

    run_window_scenario(qapp, tmp_path, scenario, servers=servers, settings=settings, ready=2)
