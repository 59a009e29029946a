"""Every empty list says what would fill it and how, muted in the theme's colour, in the list's place: the
Servers list (Add server…, the gallery, Import from), History (a chat with a message) and Tasks; the
list comes back with its first row and the note goes."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.qt_kit.theme import tokens
from desktop_app.qt_kit.tokens import DARK, LIGHT
from desktop_app.ui.chat.history_panel import HistoryPanel
from desktop_app.ui.servers.servers_panel import ServersPanel
from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.tasks_panel import TasksPanel
from desktop_app.ui.widgets.empty_state import HISTORY_EMPTY, TASKS_EMPTY
from tests.hosting import eventually
from tests.servers.fixture_server import build_fixture_server
from tests.window_kit import inprocess_bridge, run_in_qt


def muted_and_plain(note: QLabel) -> None:
    assert note.textFormat().name == "PlainText" and note.wordWrap()
    assert tokens(note).muted in note.styleSheet(), "drawn in the theme's muted colour"
    assert {LIGHT.muted, DARK.muted} & {tokens(note).muted}, "a token, not a fixed grey"


def shown(qtbot: QtBot, panel: QWidget) -> None:
    qtbot.addWidget(panel)
    panel.resize(320, 500)
    panel.show()
    qtbot.waitExposed(panel)


def test_an_empty_history_says_how_it_fills_then_gives_way_to_the_first_chat(qtbot: QtBot, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.create()  # a chat without a message is not history
    panel = HistoryPanel(store)
    shown(qtbot, panel)
    assert panel.empty.isVisible() and not panel.list.isVisible()
    assert panel.empty.text() == HISTORY_EMPTY and "click one to pick it up again" in HISTORY_EMPTY
    muted_and_plain(panel.empty)

    chat = store.create("Tides")
    store.append(chat.id, {"role": "user", "content": "When is high tide?"})
    panel.set_current(chat.id)
    assert panel.list.isVisible() and not panel.empty.isVisible()
    assert [panel.list.item(i).text() for i in range(panel.list.count())] == ["Today", "Tides"]
    store.close()


def test_an_empty_servers_list_names_the_ways_to_add_one(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"fx": build_fixture_server()})
        try:
            panel = ServersPanel(bridge)
            shown(qtbot, panel)
            assert not panel.empty.isVisible() and panel.findChild(QWidget, "serverList").isVisible()
            await bridge.host.remove("fx")
            await eventually(lambda: panel.empty.isVisible(), what="the note in the emptied list's place")
            assert not panel.findChild(QWidget, "serverList").isVisible()
            for way in ("Servers → Add server…", "Servers → Find servers…", "Servers → Import from"):
                assert way in panel.empty.text()
            muted_and_plain(panel.empty)
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_the_empty_tasks_view_says_what_a_task_is(qapp: QApplication, qtbot: QtBot) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({})
        try:
            panel = TasksPanel(TaskFeed(bridge.host.tasks))
            shown(qtbot, panel)
            assert panel.empty.isVisible() and panel.empty.text() == TASKS_EMPTY
            assert TASKS_EMPTY.startswith("No tasks yet.") and "runs a tool as a task" in TASKS_EMPTY
            muted_and_plain(panel.empty)
        finally:
            await bridge.host.stop_all()

    run_in_qt(qapp, scenario())
