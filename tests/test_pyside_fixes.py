"""None keeps its references through PySide6's dropped ones (and the defect is still there to guard)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop_app.pyside_fixes import RESERVE, reserve_none_references

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12")


def test_void_qt_calls_no_longer_bring_none_near_zero(qtbot: QtBot) -> None:
    assert reserve_none_references()  # the test session made it already: a second call adds nothing
    assert RESERVE < sys.getrefcount(None) < 2 * RESERVE
    widget = QWidget()
    qtbot.addWidget(widget)
    before = sys.getrefcount(None)
    for _ in range(1000):
        widget.setFixedHeight(10)
    assert sys.getrefcount(None) > RESERVE
    # The defect itself: when a PySide release stops dropping references, this module can go.
    assert sys.getrefcount(None) <= before - 1000 + 10, "PySide6 no longer drops None: delete pyside_fixes"


def test_without_the_reserve_a_process_aborts_and_with_it_lives() -> None:
    script = textwrap.dedent(
        """
        import sys
        from PySide6.QtWidgets import QApplication, QWidget
        from desktop_app.pyside_fixes import reserve_none_references
        calls = sys.getrefcount(None) + 1000  # enough to bring an unguarded None to zero
        if sys.argv[1] == "guarded":
            reserve_none_references()
        app = QApplication([])
        widget = QWidget()
        for _ in range(calls):
            widget.setEnabled(True)
        print("alive", flush=True)
        """
    )
    runs = {
        mode: subprocess.run(
            [sys.executable, "-c", script, mode], capture_output=True, text=True, timeout=60, check=False
        )
        for mode in ("bare", "guarded")
    }
    assert runs["guarded"].returncode == 0 and "alive" in runs["guarded"].stdout, runs["guarded"].stderr
    assert runs["bare"].returncode != 0 and "none_dealloc" in runs["bare"].stderr
