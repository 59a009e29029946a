"""The resource viewer pane's pages: one viewer per kind of content, one shown at a time.

Besides the viewers it holds the live view of an MCP App, which lives elsewhere when not shown here:
taking it off (`release_app`) hands it back through `app_released`, never deletes it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from resources_ui.viewers.binary_card import BinaryCard, ErrorCard
from resources_ui.viewers.image_viewer import ImageViewer
from resources_ui.viewers.pdf_viewer import PdfViewer
from resources_ui.viewers.text_viewer import MarkdownViewer, TextViewer
from resources_ui.viewers.viewer_kind import ViewerKind


def _centered_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setEnabled(False)
    return label


class ViewerStack(QStackedWidget):
    """A page per `ViewerKind`; the app page shows whichever app view it holds."""

    app_released = Signal(QWidget)
    """The app view held here was taken off; its owner decides its fate."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.placeholder = _centered_label("Select a resource to see it here.\nDrag resources into the chat to attach.")
        self.loading = _centered_label("Loading…")
        self.text_viewer = TextViewer()
        self.markdown_viewer = MarkdownViewer()
        self.pdf_viewer = PdfViewer()
        self.image_viewer = ImageViewer()
        self.binary_card = BinaryCard()
        self.error_card = ErrorCard()
        self.app_page = QWidget()
        self._app_layout = QVBoxLayout(self.app_page)
        self._app_layout.setContentsMargins(0, 0, 0, 0)
        self.app: QWidget | None = None
        self._pages: dict[ViewerKind, QWidget] = {
            ViewerKind.EMPTY: self.placeholder,
            ViewerKind.LOADING: self.loading,
            ViewerKind.TEXT: self.text_viewer,
            ViewerKind.MARKDOWN: self.markdown_viewer,
            ViewerKind.PDF: self.pdf_viewer,
            ViewerKind.IMAGE: self.image_viewer,
            ViewerKind.BINARY: self.binary_card,
            ViewerKind.APP: self.app_page,
            ViewerKind.ERROR: self.error_card,
        }
        for page in self._pages.values():
            self.addWidget(page)

    def show_page(self, kind: ViewerKind) -> None:
        self.setCurrentWidget(self._pages[kind])

    def hold_app(self, widget: QWidget) -> None:
        """Put `widget` on the app page, releasing the one held before."""
        if widget is self.app:
            return
        self.release_app()
        self.app = widget
        self._app_layout.addWidget(widget)
        widget.show()

    def release_app(self) -> None:
        if self.app is not None:
            app, self.app = self.app, None
            self._app_layout.removeWidget(app)
            app.setParent(None)
            self.app_released.emit(app)
