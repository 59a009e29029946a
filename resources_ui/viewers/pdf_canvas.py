"""The page surface of the PDF viewer: lays pages out, paints them and the hits, selects text.

Pages are drawn by `PdfRenderer` in the PDF worker process, only those in (or next to) the
viewport; a page at a stale zoom stays on screen, scaled, until its sharp replacement is done.
A page that takes long shows its progress, and one too heavy to draw within the budget says so,
with a button to draw it anyway (`PageNotice`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from desktop_app.core.mupdf import load as load_mupdf
from resources_ui.viewers.pdf_notice import PageNotice
from resources_ui.viewers.pdf_renderer import PdfRenderer, Word


def mupdf() -> Any:
    """PyMuPDF, imported on first use (it costs ~70 ms): the window shows before any PDF is opened."""
    return load_mupdf()


GAP: Final = 12

_PAGE_SHADOW: Final = QColor(0, 0, 0, 40)
_HIT: Final = QColor(255, 200, 0, 110)
_CURRENT_HIT: Final = QColor(255, 120, 0, 150)
_SELECTION: Final = QColor(40, 110, 230, 80)


@dataclass(frozen=True)
class Hit:
    page: int
    rect: QRectF
    """In PDF points on its page."""


class PdfCanvas(QWidget):
    """All pages stacked vertically at one zoom; the enclosing scroll area moves over it."""

    page_rendered = Signal(int)
    hits_changed = Signal()
    search_finished = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pdfCanvas")
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self._sizes: list[tuple[float, float]] = []
        self._tops: list[int] = []
        self._zoom = 1.0
        self._hits: list[Hit] = []
        self._current_hit = -1
        self._search_term = ""
        self._anchor: QPoint | None = None
        self._selection: tuple[int, list[Word]] | None = None
        self._notices: dict[int, PageNotice] = {}
        self.renderer = PdfRenderer(self._wanted_pages, self)
        self.renderer.page_updated.connect(self._on_page_updated)
        self.renderer.page_rendered.connect(self.page_rendered)
        self.renderer.hits_found.connect(self._on_hits_found)
        self.renderer.search_finished.connect(self.search_finished)
        renderer = self.renderer
        self.destroyed.connect(lambda: renderer.shut_down())  # a lambda: the renderer goes with this widget

    # -- document and geometry -------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return len(self._sizes)

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def busy(self) -> bool:
        return self.renderer.busy

    def set_document(self, doc: Any, data: bytes) -> None:
        """Show `doc` (opened from `data`); only its page sizes are read here, on the GUI thread."""
        self._sizes = [(page.rect.width, page.rect.height) for page in doc]
        self.renderer.set_document(data, self._sizes)
        self._selection = None
        for notice in self._notices.values():
            notice.deleteLater()
        self._notices.clear()
        self.start_search("")
        self._relayout()

    def max_page_width(self) -> float:
        return max((w for w, _ in self._sizes), default=595.0)

    def set_zoom(self, zoom: float) -> None:
        if zoom != self._zoom:
            self._zoom = zoom
            self._relayout()

    def _relayout(self) -> None:
        tops, y = [], GAP
        for _, height in self._sizes:
            tops.append(y)
            y += round(height * self._zoom) + GAP
        self._tops = tops
        self.resize(round(self.max_page_width() * self._zoom) + 2 * GAP, y)
        self.renderer.set_scale(self._scale())
        for page, notice in self._notices.items():
            notice.place_in(self.page_rect(page))
        self.update()

    def page_rect(self, page: int) -> QRect:
        width, height = self._sizes[page]
        w, h = round(width * self._zoom), round(height * self._zoom)
        return QRect((self.width() - w) // 2, self._tops[page], w, h)

    def page_at(self, y: int) -> int:
        """The page at canvas height `y` (the one above when `y` falls in a gap)."""
        return max(0, min(self.page_count - 1, bisect_right(self._tops, y) - 1))

    def to_page(self, page: int, point: QPoint) -> tuple[float, float]:
        origin = self.page_rect(page).topLeft()
        return (point.x() - origin.x()) / self._zoom, (point.y() - origin.y()) / self._zoom

    def to_canvas(self, page: int, rect: QRectF) -> QRectF:
        origin = self.page_rect(page).topLeft()
        z = self._zoom
        return QRectF(origin.x() + rect.x() * z, origin.y() + rect.y() * z, rect.width() * z, rect.height() * z)

    def rendered_pages(self) -> list[int]:
        """Pages whose image at the current zoom is complete."""
        return self.renderer.rendered_pages()

    def _scale(self) -> float:
        return self._zoom * self.devicePixelRatioF()

    # -- rendering -------------------------------------------------------------------------

    def _wanted_pages(self) -> list[int]:
        visible = self.visibleRegion().boundingRect()
        if visible.isEmpty() or not self._sizes:
            return []
        first, last = self.page_at(visible.top()), self.page_at(visible.bottom())
        pages = list(range(first, last + 1))
        pages += [p for p in (last + 1, first - 1) if 0 <= p < self.page_count]
        return pages

    def notice(self, page: int) -> PageNotice | None:
        """The card over `page` while it is slow to draw or not drawn, else None."""
        return self._notices.get(page)

    def _on_page_updated(self, page: int) -> None:
        if page < self.page_count:
            self._update_notice(page)
            self.update(self.page_rect(page))

    def _update_notice(self, page: int) -> None:
        """The page's notice: why it is not drawn, or how far its drawing is; none when all is well."""
        renderer = self.renderer
        notice = self._notices.get(page)
        heavy = renderer.heavy.get(page)
        progress = renderer.progress(page)
        if heavy is None and progress is None:
            if notice is not None:
                del self._notices[page]
                notice.deleteLater()
            return
        if notice is None:
            notice = self._notices[page] = PageNotice(self)
            notice.render_anyway.connect(lambda page=page: renderer.render_anyway(page))
        if heavy is not None:
            notice.show_heavy(heavy, can_force="too heavy" in heavy)
        elif progress is not None:
            notice.show_progress(page, *progress, anyway=renderer.forced(page))
        notice.place_in(self.page_rect(page))
        notice.show()

    # -- search ----------------------------------------------------------------------------

    @property
    def hits(self) -> list[Hit]:
        return self._hits

    @property
    def current_hit(self) -> int:
        return self._current_hit

    @property
    def search_term(self) -> str:
        return self._search_term

    @property
    def searching(self) -> bool:
        return self.renderer.searching

    @property
    def search_skipped(self) -> list[int]:
        """Pages too heavy to search within the budget."""
        return self.renderer.search_skipped

    def start_search(self, term: str) -> None:
        """Search page by page in the worker; hits arrive through `hits_changed`."""
        self._search_term = term.strip()
        self._hits = []
        self._current_hit = -1
        self.renderer.search(self._search_term)
        self.update()
        self.hits_changed.emit()

    def set_current_hit(self, number: int) -> None:
        self._current_hit = number
        self.update()

    def _on_hits_found(self, page: int, rects: list[tuple[float, float, float, float]]) -> None:
        self._hits.extend(Hit(page, QRectF(x0, y0, x1 - x0, y1 - y0)) for x0, y0, x1, y1 in rects)
        self.update(self.page_rect(page))
        self.hits_changed.emit()

    # -- text selection --------------------------------------------------------------------

    def words(self, page: int) -> list[Word]:
        """The page's words, read in the worker once the page is drawn ([] until then)."""
        return self.renderer.words(page) or []

    def page_text(self, page: int) -> str:
        return _lines(self.words(page))

    def select_rect(self, page: int, rect: QRectF) -> None:
        """Select the words on `page` touching `rect` (PDF points)."""
        chosen = [w for w in self.words(page) if QRectF(w[0], w[1], w[2] - w[0], w[3] - w[1]).intersects(rect)]
        self._selection = (page, chosen) if chosen else None
        self.update()

    def selected_text(self) -> str:
        return "" if self._selection is None else _lines(self._selection[1])

    def clear_selection(self) -> None:
        if self._selection is not None:
            self._selection = None
            self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.page_count:
            self._anchor = event.position().toPoint()
            self.clear_selection()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._anchor is not None:
            page = self.page_at(self._anchor.y())
            x0, y0 = self.to_page(page, self._anchor)
            x1, y1 = self.to_page(page, event.position().toPoint())
            self.select_rect(page, QRectF(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)))
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._anchor = None
        super().mouseReleaseEvent(event)

    # -- painting --------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self._sizes:
            return
        painter = QPainter(self)
        exposed = event.rect()
        needs_work = False
        for page in range(self.page_at(exposed.top()), self.page_at(exposed.bottom()) + 1):
            rect = self.page_rect(page)
            painter.fillRect(rect.translated(2, 3), _PAGE_SHADOW)
            painter.fillRect(rect, Qt.GlobalColor.white)
            drawn = self.renderer.image(page)
            if drawn is not None:
                painter.drawImage(QRectF(rect), drawn[1])
            needs_work = needs_work or not self.renderer.is_current(page)
            self._paint_marks(painter, page)
        painter.end()
        if needs_work:
            self.renderer.kick()

    def _paint_marks(self, painter: QPainter, page: int) -> None:
        for number, hit in enumerate(self._hits):
            if hit.page == page:
                painter.fillRect(self.to_canvas(page, hit.rect), _CURRENT_HIT if number == self._current_hit else _HIT)
        if self._selection is not None and self._selection[0] == page:
            for w in self._selection[1]:
                painter.fillRect(self.to_canvas(page, QRectF(w[0], w[1], w[2] - w[0], w[3] - w[1])), _SELECTION)


def _lines(words: list[Word]) -> str:
    """Words joined as the page has them: spaces within a line, a line break between lines."""
    lines: list[str] = []
    last_line: tuple[int, int] | None = None
    for word in sorted(words, key=lambda w: (w[5], w[6], w[7])):
        line = (word[5], word[6])
        if line == last_line:
            lines[-1] += " " + word[4]
        else:
            lines.append(word[4])
            last_line = line
    return "\n".join(lines)
