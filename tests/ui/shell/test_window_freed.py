"""A window nobody holds is freed: no child of it keeps it alive through Qt, where the collector cannot see."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.ui.shell.main_window import MainWindow


def test_a_window_dropped_is_freed_with_its_menus_and_docks(qapp: QApplication, qtbot: QtBot) -> None:
    window = MainWindow()
    window.show()
    qtbot.waitUntil(lambda shown=window: shown.framed)  # its docks and menus come right after its first paint
    menus = len(window.menuBar().actions())
    assert menus >= 4
    freed: list[str] = []
    window.destroyed.connect(lambda: freed.append("window"))
    held = weakref.ref(window)
    window.close()
    del window
    gc.collect()
    assert held() is None  # nothing in Qt holds a Python reference to it
    assert freed == ["window"]  # and Qt deleted it, its menus and docks with it
