"""`.mcpb` files dragged onto the window, and the file dialog that opens one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt
from PySide6.QtGui import QDragMoveEvent, QDropEvent
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


class BundleDrops(QObject):
    """Takes `.mcpb` files dropped anywhere on the widget it filters (drags the panes leave pass up to it)."""

    def __init__(self, target: QWidget, on_dropped: Callable[[Path], object]) -> None:
        super().__init__(target)
        self._on_dropped = on_dropped
        target.setAcceptDrops(True)
        target.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QDropEvent) and event.type() == QEvent.Type.Drop:
            paths = bundle_paths(event.mimeData())
            for path in paths:
                self._on_dropped(path)
            if paths:
                event.acceptProposedAction()
                return True
        elif isinstance(event, QDragMoveEvent) and bundle_paths(event.mimeData()):  # enter and move
            event.acceptProposedAction()
            return True
        return False
