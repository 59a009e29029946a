"""`.mcpb` files dragged onto the window, and the file dialog that opens one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QFileDialog, QWidget

BUNDLE_SUFFIX = ".mcpb"


def bundle_paths(mime: QMimeData | None) -> list[Path]:
    """Local `.mcpb` files among the dragged URLs (anything else is not ours to take)."""
    if mime is None or not mime.hasUrls():
        return []
    return [
        Path(url.toLocalFile())
        for url in mime.urls()
        if url.isLocalFile() and url.toLocalFile().lower().endswith(BUNDLE_SUFFIX)
    ]


def choose_bundle(parent: QWidget, on_chosen: Callable[[Path], object]) -> QFileDialog:
    """A non-blocking file dialog for `.mcpb` bundles."""
    dialog = QFileDialog(parent, "Install an MCP bundle", str(Path.home()), "MCP bundles (*.mcpb);;All files (*)")
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.fileSelected.connect(lambda path: on_chosen(Path(path)))
    dialog.open()
    return dialog
