"""The servers panel's list: rows found by name, the first one selected, as tall as its rows up to a cap."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_app.ui.servers.server_list import LIST_ROWS, ServerList


def test_rows_are_found_by_name_and_the_first_is_selected(qtbot: QtBot) -> None:
    rows = ServerList()
    qtbot.addWidget(rows)
    first, added = rows.row_of("files")
    assert added and rows.selected() == "files"
    again, added = rows.row_of("files")
    assert again is first and not added
    rows.row_of("github")
    assert rows.names() == ["files", "github"] and rows.selected() == "files"
    first.setText("files  —  ready  ·  update 1.2.0")  # a row's text carries its state; its name stays
    rows.keep_only({"github"})
    assert rows.names() == ["github"]


def test_the_list_grows_with_its_rows_up_to_its_cap(qtbot: QtBot) -> None:
    rows = ServerList()
    qtbot.addWidget(rows)
    empty = rows.rows_height()
    rows.row_of("one")
    one = rows.rows_height()
    for n in range(2, LIST_ROWS + 5):
        rows.row_of(f"server {n}")
    assert empty > 0 and one > 0  # room for one row even when there is none
    assert rows.rows_height() == one + (LIST_ROWS - 1) * rows.sizeHintForRow(0)  # then it scrolls
