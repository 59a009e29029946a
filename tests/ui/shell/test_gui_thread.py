"""While the window lives garbage is collected on the GUI thread only (and collected all the same),
and the interpreter is handed back to that thread sooner."""

from __future__ import annotations

import gc
import sys
import threading
import time
import weakref
from typing import Any

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.core.long_lived import long_lived
from desktop_app.ui.shell.gui_thread import GuiThreadCollector, gui_thread_first


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_a_worker_allocating_past_the_thresholds_never_collects(qapp: QApplication, qtbot: QtBot) -> None:
    threads: list[str] = []

    def record(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            threads.append(threading.current_thread().name)

    gc.callbacks.append(record)
    try:
        with gui_thread_first():
            cycle = Node()
            gone = weakref.ref(cycle)
            del cycle
            worker = threading.Thread(target=lambda: [Node() for _ in range(200_000)], name="worker")
            worker.start()
            worker.join()
            assert "worker" not in threads and gone() is not None  # nothing collected meanwhile
            qtbot.waitUntil(lambda: gone() is None, timeout=2000)
            assert gc.isenabled() is False
            assert sys.getswitchinterval() == 0.001
    finally:
        gc.callbacks.remove(record)
    assert gc.isenabled()
    assert sys.getswitchinterval() == 0.005
    assert threads and set(threads) == {threading.main_thread().name}


def test_a_full_collection_waits_for_its_interval(qapp: QApplication) -> None:
    collector = GuiThreadCollector()
    collector.start()
    try:
        full = gc.get_stats()[2]["collections"]
        for _ in range(200):  # enough young collections for CPython to start a full one
            [Node() for _ in range(1_000)]
            collector.collect_due()
        assert gc.get_stats()[2]["collections"] == full
        collector._last_full = time.monotonic() - 60
        for _ in range(200):
            [Node() for _ in range(1_000)]
            collector.collect_due()
        assert gc.get_stats()[2]["collections"] == full + 1
    finally:
        collector.stop()
        collector.deleteLater()


def test_nothing_is_collected_while_long_lived_objects_are_made(qapp: QApplication) -> None:
    collector = GuiThreadCollector()
    collector.start()
    try:
        young = gc.get_stats()[0]["collections"]
        with long_lived():
            [Node() for _ in range(5_000)]
            collector.collect_due()
            assert gc.get_stats()[0]["collections"] == young
        [Node() for _ in range(5_000)]
        collector.collect_due()
        assert gc.get_stats()[0]["collections"] > young
    finally:
        collector.stop()
        collector.deleteLater()
        gc.unfreeze()
