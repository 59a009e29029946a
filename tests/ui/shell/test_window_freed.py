"""A window nobody holds is freed: no child of it keeps it alive through Qt, where the collector cannot see."""

from __future__ import annotations

import gc

from PySide6.QtWidgets import QApplication

from desktop_app.ui.shell.main_window import MainWindow


def test_a_window_dropped_is_freed_with_its_menus_and_docks(qapp: QApplication) -> None:
    before = set(map(id, qapp.topLevelWidgets()))
    window = MainWindow()
    window.show()
    qapp.processEvents()
    assert len(qapp.topLevelWidgets()) > len(before)  # the window and its menus
    window.close()
    del window
    gc.collect()
    left = [type(w).__name__ for w in qapp.topLevelWidgets() if id(w) not in before]
    assert left == []
