"""The gallery window: search the registry, its servers on the left, a server's details and install on
the right; when the registry gives no list, a page that says why, offers Try again and the ways to
add a server without it.

Drawing only; `GalleryController` fills it. Non-modal, so servers and chats keep running while
the user browses. Typing searches after a short pause; the status line says when the list is the
cached one.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from desktop_app.core.registry.model import ServerEntry
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.gallery.frame import ListDetailsDialog
from desktop_app.ui.gallery.unreachable_view import UnreachableView

SEARCH_PAUSE_MS = 300
NOTHING_SELECTED = "Select a server to see what it offers and how to install it."


def entry_text(entry: ServerEntry, badge: str | None = None) -> str:
    """Two lines for the list: title and version (plus a badge), then the one-line description."""
    server = entry.server
    status = f" · {entry.official.status}" if entry.official.status != "active" else ""
    extra = f" · {badge}" if badge else ""
    description = " ".join(server.description.split())
    return f"{server.display_name}  {server.version}{status}{extra}\n{description}"


class GalleryDialog(ListDetailsDialog):
    """Search field and registry line on top; the list and an `InstallPane`, or `unreachable`."""

    sig_search = Signal(str)
    """The search text settled (after a pause, or Enter)."""
    sig_more = Signal()
    """The user wants the next page of results."""
    sig_change_registry = Signal()
    """The user wants to point the gallery at another registry (opens Settings)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("gallery", "Find servers", QSize(1060, 700), parent)
        self.search = QLineEdit()
        self.search.setObjectName("gallerySearch")
        self.search.setPlaceholderText("Search servers by name")
        self.search.setClearButtonEnabled(True)
        self.registry = QLabel()
        muted(self.registry)
        self.registry.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.change = QPushButton("Change…")
        self.change.setToolTip("Use another registry (Settings → Server registry)")
        self.more = QPushButton("More results")
        self.more.setObjectName("galleryMore")
        self.more.hide()
        self.retry = QPushButton("Try again")
        self.retry.setObjectName("galleryStatusRetry")
        self.retry.setToolTip("Ask the registry again")
        self.retry.hide()
        self.unreachable = UnreachableView()
        self.pages.addWidget(self.unreachable)

        row = QHBoxLayout()
        row.addWidget(self.search, 3)
        row.addWidget(self.registry, 2)
        row.addWidget(self.change)
        self.top.addLayout(row)
        self.status_row.addWidget(self.retry, 0, Qt.AlignmentFlag.AlignTop)
        self.column.addWidget(self.more)

        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(SEARCH_PAUSE_MS)
        self._pause.timeout.connect(lambda: self.sig_search.emit(self.search.text().strip()))
        self.search.textChanged.connect(lambda _t: self._pause.start())
        self.search.returnPressed.connect(self._search_now)
        self.more.clicked.connect(self.sig_more)
        self.change.clicked.connect(self.sig_change_registry)
        self.unreachable.sig_retry.connect(self._search_now)
        self.retry.clicked.connect(self._search_now)

    def _search_now(self) -> None:
        self._pause.stop()
        self.sig_search.emit(self.search.text().strip())

    # -- filling ---------------------------------------------------------------------------

    def set_registry(self, url: str) -> None:
        self.registry.setText(f"Registry: {url}")
        self.registry.setToolTip(url)

    def set_offline(self, text: str) -> None:
        """The list shown is the one saved earlier (`text` says since when and why): Try again beside it."""
        self.set_status(text, tone="caution")
        self.retry.show()

    def set_status(self, text: str, *, tone: str = "") -> None:
        self.retry.hide()
        super().set_status(text, tone=tone)

    def searching(self, text: str) -> None:
        """A search starts over: an empty list, and the unreachable page (if shown) says it is trying."""
        self.clear_rows()
        self.more.hide()
        self.pane.clear(NOTHING_SELECTED)
        if self.pages.currentWidget() is self.unreachable:
            self.unreachable.trying()
        else:
            self.set_status(text)

    def show_unreachable(self, registry: str, error: str) -> None:
        """No list and nothing cached: say why in place of the list and details."""
        self.set_status("")
        self.unreachable.show_failure(registry, error)
        self.pages.setCurrentWidget(self.unreachable)

    def add_entries(self, rows: list[tuple[int, ServerEntry, QIcon, str | None]], *, more: bool) -> None:
        """Append results: (index, entry, icon, badge) each; the list and details are shown."""
        self.pages.setCurrentWidget(self.splitter)
        for index, entry, icon, badge in rows:
            self.add_row(index, icon, entry_text(entry, badge), f"{entry.server.name}\n{entry.server.description}")
        self.more.setVisible(more)

    def set_entry_icon(self, index: int, icon: QIcon) -> None:
        self.update_row(index, icon=icon)

    def set_entry_badge(self, index: int, entry: ServerEntry, badge: str | None) -> None:
        self.update_row(index, text=entry_text(entry, badge))

    def select_first(self) -> None:
        if self.list.count() and self.list.currentItem() is None:
            self.list.setCurrentRow(0)
