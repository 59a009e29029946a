"""A card over a PDF page that is not drawn yet: how far its drawing is, or why it is not drawn."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop_app.qt_kit.theme import themed
from desktop_app.qt_kit.tokens import SPACE

MAX_WIDTH: Final = 380
MARGIN: Final = 16


class PageNotice(QFrame):
    """Progress for a page that takes long; for a heavy one, the reason and "Render anyway"."""

    render_anyway = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("pageNotice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        themed(
            self,
            lambda p: (
                f"#pageNotice {{ background: {p.raised}; border: 1px solid {p.border};"
                f" border-radius: {SPACE.radius}px; }}"
            ),
        )
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # the reason can quote the PDF engine
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.button = QPushButton("Render anyway")
        self.button.setToolTip("Draw this page however long it takes; the window stays usable meanwhile")
        self.button.clicked.connect(self.render_anyway)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addWidget(self.message)
        layout.addWidget(self.progress)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignHCenter)

    def show_heavy(self, reason: str, *, can_force: bool) -> None:
        more = " Rendering it anyway may take minutes; you can keep reading and working meanwhile."
        self.message.setText(reason + (more if can_force else ""))
        self.progress.hide()
        self.button.setVisible(can_force)

    def show_progress(self, page: int, seconds: float, done: int, bands: int, *, anyway: bool) -> None:
        what = f"Rendering page {page + 1}{' anyway' if anyway else ''}… {seconds:.0f} s"
        self.message.setText(what + ("\nYou can keep working meanwhile." if anyway else ""))
        # Bands drawn out of bands to draw; a page drawn in one go has only its clock to show.
        self.progress.setRange(0, max(bands, 1))
        self.progress.setValue(done)
        self.progress.setVisible(bands > 1)
        self.button.hide()

    def place_in(self, page: QRect) -> None:
        """Centred across the page, in its upper part, never wider than the page."""
        width = max(160, min(MAX_WIDTH, page.width() - 2 * MARGIN))
        self.setFixedWidth(width)
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        height = max(height, self.sizeHint().height())
        top = page.top() + max(MARGIN, min(page.height() // 4, page.height() - height - MARGIN))
        self.setGeometry(page.left() + (page.width() - width) // 2, top, width, height)
