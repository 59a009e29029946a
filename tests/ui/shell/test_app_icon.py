"""The window's icon: the sizes drawn ahead for title bars and task switchers, the master for the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from desktop_app.ui.shell import app_icon as icon_module


def test_the_drawn_sizes_are_used_and_the_master_draws_the_rest(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    master = icon_module.icons_dir() / "mcp-desk.svg"
    shutil.copy(master, tmp_path / "mcp-desk.svg")
    (tmp_path / "build").mkdir()
    red = QImage(16, 16, QImage.Format.Format_ARGB32)
    red.fill(Qt.GlobalColor.red)
    assert red.save(str(tmp_path / "build" / "mcp-desk-16.png"))
    monkeypatch.setattr(icon_module, "icons_dir", lambda: tmp_path)
    icon = icon_module.app_icon()
    assert QSize(16, 16) in icon.availableSizes()
    assert icon.pixmap(16).toImage().pixelColor(8, 8).name() == "#ff0000", "the drawn 16 px, not the master scaled"
    assert not icon.pixmap(200).isNull() and icon.pixmap(200).width() == 200


def test_no_icon_files_give_an_empty_icon(qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(icon_module, "icons_dir", lambda: tmp_path)
    assert icon_module.app_icon().isNull()
