"""A layout's widgets are read and taken out without a Python wrapper left on any of its items.

The hazard, measured on PySide6 6.12: the wrapper `itemAt` returns outlives the item Qt deletes when its
widget moves on, and the next item Qt puts at that address is handed to Python as the old wrapper. A long
chat's heap was corrupted that way once its oldest turns were folded out."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QLayoutItem, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot
from shiboken6 import Shiboken

import desktop_app
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.layout_widgets import discard_widgets, placed_widgets, widgets_in

L = TypeVar("L", bound=QLayout)


def _item_wrappers() -> set[QLayoutItem]:
    """The Python wrappers of layout items (not of layouts) on file now (those of earlier tests too)."""
    wrappers = Shiboken.getAllValidWrappers()
    return {o for o in wrappers if isinstance(o, QLayoutItem) and not isinstance(o, QLayout)}


def _labels_in(kind: Callable[[QWidget], L], count: int, qtbot: QtBot) -> tuple[QWidget, L, list[QLabel]]:
    """A widget laid out by a new layout of `kind` holding `count` labels (the widget is the caller's to keep)."""
    host = QWidget()
    qtbot.addWidget(host)
    layout = kind(host)
    labels = [QLabel(f"row {n}") for n in range(count)]
    for label in labels:
        layout.addWidget(label)
    return host, layout, labels


def test_an_item_wrapper_outlives_its_item(qtbot: QtBot) -> None:
    """Why the helpers exist: should PySide stop keeping such wrappers, this fails and they can go."""
    host = QWidget()
    qtbot.addWidget(host)
    row = QHBoxLayout(host)
    button, other = QPushButton("moved on"), QVBoxLayout()
    row.addWidget(button)
    row.addLayout(other)
    before = _item_wrappers()
    row.itemAt(0)  # the wrapper is dropped at once, but the layout keeps it
    other.addWidget(button)  # Qt deletes the item in `row`
    stale = _item_wrappers() - before
    assert len(stale) == 1
    assert Shiboken.isValid(stale.pop())  # still on file under the freed address, for the next item there


def test_reading_and_emptying_a_layout_wraps_none_of_its_items(qtbot: QtBot) -> None:
    _host, column, labels = _labels_in(QVBoxLayout, 5, qtbot)
    nested = QHBoxLayout()
    column.insertLayout(2, nested)
    nested.addWidget(QLabel("inside the nested row"))
    column.addStretch(1)
    before = _item_wrappers()

    assert [index for index, _ in placed_widgets(column)] == [0, 1, 3, 4, 5]  # not the nested row's label
    assert widgets_in(column) == labels
    assert widgets_in(column, 1, 4) == labels[1:3]
    other = QVBoxLayout()
    column.addLayout(other)
    other.addWidget(labels[0])  # moved: Qt deletes its item in `column`
    labels[1].deleteLater()
    qtbot.waitUntil(lambda: widgets_in(column) == labels[2:])

    discard_widgets(column)
    assert widgets_in(column) == []
    assert column.count() == 3  # the nested row, the stretch and the moved label's layout stay
    assert _item_wrappers() <= before


def test_a_flow_layout_is_read_and_emptied_the_same_way(qtbot: QtBot) -> None:
    _host, flow, chips = _labels_in(FlowLayout, 4, qtbot)
    flow.addStretch()
    assert widgets_in(flow) == chips
    flow.removeWidget(chips[1])
    assert widgets_in(flow) == [chips[0], *chips[2:]]
    discard_widgets(flow)
    assert flow.count() == 1  # the stretch


LAYOUT_ITEM_CALLS = ("itemAt", "takeAt", "replaceWidget")


class _LayoutItemCalls(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[int] = []

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr in LAYOUT_ITEM_CALLS:
            self.found.append(node.lineno)
        self.generic_visit(node)


EXEMPT = {
    "ui/chat/history_panel.py": "QListWidget.itemAt(point): a list's row, which the list owns, not a layout's item",
}


def test_no_module_hands_a_layout_item_to_python() -> None:
    """Only the helpers read layouts; a new `itemAt`, `takeAt` or `replaceWidget` call fails here."""
    root = Path(desktop_app.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name in EXEMPT or name == "qt_kit/flow_layout.py":  # the Python layout's own item methods
            continue
        source = path.read_text(encoding="utf-8")
        if not any(f".{name}(" in source for name in LAYOUT_ITEM_CALLS):
            continue  # parsed only where the names are written
        calls = _LayoutItemCalls()
        calls.visit(ast.parse(source))
        offenders += [f"{name}:{line}" for line in calls.found]
    assert offenders == [], "read layouts with desktop_app.qt_kit.layout_widgets instead"
