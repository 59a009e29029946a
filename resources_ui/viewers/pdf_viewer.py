"""The PDF viewer: page navigation, zoom and fit width, search with highlighted hits, copy text.

Pages are drawn by the canvas in the PDF worker process, with a time budget per page; this
module is the toolbar and the scrolling around it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QPalette, QShortcut, QWheelEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.qt_kit.flow_layout import FlowLayout
from resources_ui.viewers.pdf_canvas import GAP, PdfCanvas, mupdf
from resources_ui.viewers.toolbar import beside_icon, tool_button

if TYPE_CHECKING:
    import pymupdf


ZOOM_STEP: Final = 1.25
MIN_ZOOM: Final = 0.25
MAX_ZOOM: Final = 8.0


class PdfError(ValueError):
    """The bytes are not a PDF that can be shown."""


def open_pdf(data: bytes) -> pymupdf.Document:
    """Open PDF bytes, turning every way it can fail into a `PdfError` with a readable reason."""
    try:
        doc: pymupdf.Document = mupdf().open(stream=data, filetype="pdf")
    except Exception as exc:
        raise PdfError(f"This PDF could not be opened: {exc}") from exc
    if doc.needs_pass:
        doc.close()
        raise PdfError("This PDF is password-protected.")
    if doc.page_count == 0:
        doc.close()
        raise PdfError("This PDF has no pages.")
    return doc


class PdfViewer(QWidget):
    """Continuous pages in a scroll area under a toolbar."""

    page_changed = Signal(int)
    """0-based number of the page at the top of the view."""
    first_page_shown = Signal()
    """The first page after `load` is on screen, sharp; for latency measurements."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pdfViewer")
        self.canvas = PdfCanvas()
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidget(self.canvas)
        self.scroll_area.setWidgetResizable(False)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.scroll_area.setBackgroundRole(QPalette.ColorRole.Mid)
        self.scroll_area.viewport().installEventFilter(self)
        self.scroll_area.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self._fit_width = True
        self._current_page = 0
        self._awaiting_first = False
        self._search_origin = 0

        self.prev_button = tool_button("‹", "Previous page (Page Up)", self.previous_page)
        self.next_button = tool_button("›", "Next page (Page Down)", self.next_page)
        self.page_box = QSpinBox()
        self.page_box.setObjectName("pdfPage")
        self.page_box.setMinimum(1)
        self.page_box.setKeyboardTracking(False)
        self.page_box.valueChanged.connect(lambda value: self.go_to_page(value - 1))
        self.page_total = QLabel("/ 0")
        self.zoom_out_button = tool_button("−", "Zoom out (Ctrl+-)", self.zoom_out)
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_in_button = tool_button("+", "Zoom in (Ctrl++)", self.zoom_in)
        self.fit_button = tool_button("Fit", "Fit the page width to the view", self.set_fit_width)
        self.fit_button.setCheckable(True)
        self.fit_button.setChecked(True)
        self.search_edit = QLineEdit()
        self.search_edit.setObjectName("pdfSearch")
        self.search_edit.setPlaceholderText("Search (Ctrl+F)")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMaximumWidth(260)
        self.search_edit.returnPressed.connect(self._on_search_return)
        self.search_edit.textChanged.connect(lambda text: self.search(text) if not text else None)
        self.prev_hit_button = tool_button("▲", "Previous match (Shift+Enter)", self.previous_hit)
        self.next_hit_button = tool_button("▼", "Next match (Enter)", self.next_hit)
        self.hits_label = QLabel("")
        self.hits_label.setMinimumWidth(40)
        self.copy_button = tool_button("Copy", "Copy the selected text, or the whole page (Ctrl+C)", self.copy_text)
        beside_icon(self.copy_button, "copy")

        # The pages, the zoom and Copy wrap onto more lines in a narrow dock instead of setting its width.
        bar = FlowLayout(spacing=12)
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(_group(self.prev_button, self.page_box, self.page_total, self.next_button))
        bar.addWidget(_group(self.zoom_out_button, self.zoom_label, self.zoom_in_button, self.fit_button))
        bar.addStretch()
        bar.addWidget(self.copy_button)
        # Search gets its own row so the viewer still fits a narrow dock.
        search_bar = QHBoxLayout()
        search_bar.setContentsMargins(4, 0, 4, 2)
        search_bar.setSpacing(4)
        widget: QWidget
        for widget in (self.search_edit, self.prev_hit_button, self.next_hit_button, self.hits_label):
            search_bar.addWidget(widget)
        search_bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addLayout(search_bar)
        layout.addWidget(self.scroll_area)

        self.canvas.hits_changed.connect(self._on_hits)
        self.canvas.search_finished.connect(self._on_hits)
        self.canvas.page_rendered.connect(self._on_page_rendered)
        shortcuts = (
            (QKeySequence.StandardKey.Find, lambda: self.search_edit.setFocus()),
            (QKeySequence.StandardKey.Copy, self.copy_text),
            (QKeySequence.StandardKey.ZoomIn, self.zoom_in),
            (QKeySequence.StandardKey.ZoomOut, self.zoom_out),
        )
        for key, slot in shortcuts:
            QShortcut(QKeySequence(key), self, slot, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

    # -- document --------------------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return self.canvas.page_count

    @property
    def current_page(self) -> int:
        return self._current_page

    @property
    def zoom(self) -> float:
        return self.canvas.zoom

    @property
    def fit_width(self) -> bool:
        return self._fit_width

    def prepare(self) -> None:
        """A PDF is on its way: start the PDF engine now, so its first page does not wait for it."""
        self.canvas.renderer.worker.start_soon()

    def load(self, data: bytes, *, keep_view: bool = False) -> None:
        """Show a PDF from its bytes; `keep_view` stays on the same page and zoom (for updates)."""
        doc = open_pdf(data)
        page = self._current_page if keep_view else 0
        try:
            self.canvas.set_document(doc, data)
        finally:
            doc.close()  # only its page sizes are used here; the worker has its own copy
        self.page_total.setText(f"/ {self.page_count}")
        self.page_box.blockSignals(True)
        self.page_box.setMaximum(self.page_count)
        self.page_box.blockSignals(False)
        self.search_edit.clear()
        self.hits_label.clear()
        self._awaiting_first = True
        if self._fit_width:
            self._apply_fit()
        else:
            self._set_zoom(self.canvas.zoom)
        self.go_to_page(min(page, self.page_count - 1))

    # -- navigation and zoom ---------------------------------------------------------------

    def go_to_page(self, page: int) -> None:
        if not self.page_count:
            return
        page = max(0, min(self.page_count - 1, page))
        self.scroll_area.verticalScrollBar().setValue(self.canvas.page_rect(page).top() - GAP)
        self._set_current(page)

    def next_page(self) -> None:
        self.go_to_page(self._current_page + 1)

    def previous_page(self) -> None:
        self.go_to_page(self._current_page - 1)

    def zoom_in(self) -> None:
        self._set_zoom(min(MAX_ZOOM, self.canvas.zoom * ZOOM_STEP), fit=False)

    def zoom_out(self) -> None:
        self._set_zoom(max(MIN_ZOOM, self.canvas.zoom / ZOOM_STEP), fit=False)

    def set_fit_width(self, fit: bool = True) -> None:
        self._fit_width = fit
        self.fit_button.setChecked(fit)
        if fit:
            self._apply_fit()

    def _apply_fit(self) -> None:
        available = self.scroll_area.viewport().width() - 2 * GAP
        if available > 50:
            self._set_zoom(available / self.canvas.max_page_width(), fit=True)

    def _set_zoom(self, zoom: float, *, fit: bool | None = None) -> None:
        if fit is not None and fit != self._fit_width:
            self._fit_width = fit
            self.fit_button.setChecked(fit)
        bar = self.scroll_area.verticalScrollBar()
        page = self._current_page
        offset = 0.0
        if self.page_count:
            rect = self.canvas.page_rect(page)
            offset = (bar.value() - rect.top()) / max(1, rect.height())
        self.canvas.set_zoom(zoom)
        self.zoom_label.setText(f"{round(zoom * 100)}%")
        if self.page_count:
            rect = self.canvas.page_rect(page)
            bar.setValue(rect.top() + round(offset * rect.height()))

    def _set_current(self, page: int) -> None:
        if page != self._current_page or self.page_box.value() != page + 1:
            self._current_page = page
            self.page_box.blockSignals(True)
            self.page_box.setValue(page + 1)
            self.page_box.blockSignals(False)
            self.page_changed.emit(page)

    def _on_scrolled(self, value: int) -> None:
        if self.page_count:
            self._set_current(self.canvas.page_at(value + self.scroll_area.viewport().height() // 3))

    def _on_page_rendered(self, page: int) -> None:
        if self._awaiting_first and page == self._current_page:
            self._awaiting_first = False
            self.first_page_shown.emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.scroll_area.viewport():
            if event.type() == QEvent.Type.Resize and self._fit_width and self.page_count:
                self._apply_fit()
            elif (
                isinstance(event, QWheelEvent)
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier
                and event.angleDelta().y()
            ):
                (self.zoom_in if event.angleDelta().y() > 0 else self.zoom_out)()
                return True
        return super().eventFilter(watched, event)

    # -- search ----------------------------------------------------------------------------

    def search(self, term: str) -> None:
        """Find `term` on every page; the first hit at or after the current page becomes current."""
        self._search_origin = self._current_page
        self.canvas.start_search(term)

    def next_hit(self) -> None:
        self._step_hit(1)

    def previous_hit(self) -> None:
        self._step_hit(-1)

    def _step_hit(self, delta: int) -> None:
        hits = self.canvas.hits
        if hits:
            self._show_hit((self.canvas.current_hit + delta) % len(hits))

    def _on_search_return(self) -> None:
        term = self.search_edit.text().strip()
        shift = QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier
        if term and term == self.canvas.search_term:
            (self.previous_hit if shift else self.next_hit)()
        else:
            self.search(term)

    def _on_hits(self) -> None:
        hits = self.canvas.hits
        if self.canvas.current_hit < 0 and hits:
            after = next((n for n, hit in enumerate(hits) if hit.page >= self._search_origin), None)
            if after is not None or not self.canvas.searching:
                self._show_hit(after if after is not None else 0)
        self._update_hits_label()

    def _show_hit(self, number: int) -> None:
        self.canvas.set_current_hit(number)
        hit = self.canvas.hits[number]
        rect = self.canvas.to_canvas(hit.page, hit.rect).toRect()
        viewport = self.scroll_area.viewport()
        # The hit goes to the upper third, where the page counter looks, not to the bottom edge.
        self.scroll_area.verticalScrollBar().setValue(rect.center().y() - viewport.height() // 3)
        across = self.scroll_area.horizontalScrollBar()
        if not across.value() <= rect.center().x() <= across.value() + viewport.width():
            across.setValue(rect.center().x() - viewport.width() // 2)
        self._update_hits_label()

    def _update_hits_label(self) -> None:
        hits, current = self.canvas.hits, self.canvas.current_hit
        skipped = len(self.canvas.search_skipped)
        unsearched = f" ({skipped} page{'s' * (skipped != 1)} too heavy to search)" if skipped else ""
        if not self.canvas.search_term:
            self.hits_label.clear()
        elif not hits:
            self.hits_label.setText("searching…" if self.canvas.searching else f"no matches{unsearched}")
        else:
            more = "+" if self.canvas.searching else ""
            self.hits_label.setText(f"{current + 1} of {len(hits)}{more}{unsearched}")

    # -- text ------------------------------------------------------------------------------

    def copy_text(self) -> str:
        """Copy the selected words, or the current page's text when nothing is selected."""
        if not self.page_count:
            return ""
        text = self.canvas.selected_text() or self.canvas.page_text(self._current_page)
        QGuiApplication.clipboard().setText(text)
        return text


def _group(*widgets: QWidget) -> QWidget:
    """Toolbar parts that stay together on one line when the bar wraps."""
    group = QWidget()
    row = QHBoxLayout(group)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    for widget in widgets:
        row.addWidget(widget)
    return group
