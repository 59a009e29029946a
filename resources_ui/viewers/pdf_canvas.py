"""The page surface of the PDF viewer: lays pages out, renders them on demand, paints hits.

Only pages in (or next to) the viewport are rendered, in horizontal bands of bounded size, one
band per slice, so even a page at 800 % never holds the event loop for long. Finished pages
are kept in a pixel-bounded cache; a page at a stale zoom stays on screen, scaled, until its
sharp replacement is done.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from PySide6.QtCore import QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from desktop_app.core.mupdf import load as load_mupdf
from resources_ui.viewers.slices import SliceRunner

if TYPE_CHECKING:
    pass


def mupdf() -> Any:
    """PyMuPDF, imported on first use (it costs ~70 ms): the window shows before any PDF is opened."""
    return load_mupdf()


GAP: Final = 12
BAND_PIXELS: Final = 600_000
CACHE_PIXELS: Final = 48_000_000
MAX_DISPLAY_LISTS: Final = 16
MAX_WORD_PAGES: Final = 8

_PAGE_SHADOW: Final = QColor(0, 0, 0, 40)
_HIT: Final = QColor(255, 200, 0, 110)
_CURRENT_HIT: Final = QColor(255, 120, 0, 150)
_SELECTION: Final = QColor(40, 110, 230, 80)

Word = tuple[float, float, float, float, str, int, int, int]
"""PyMuPDF's word tuple: x0, y0, x1, y1, text, block, line, word number."""


@dataclass
class _Build:
    """A page image being rendered band by band."""

    page: int
    scale: float
    image: QImage
    display_list: Any
    next_y: int = 0


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
        self._doc: Any = None
        self._sizes: list[tuple[float, float]] = []
        self._tops: list[int] = []
        self._zoom = 1.0
        self._done: OrderedDict[int, tuple[float, QImage]] = OrderedDict()
        self._build: _Build | None = None
        self._lists: OrderedDict[int, Any] = OrderedDict()
        self._words: OrderedDict[int, list[Word]] = OrderedDict()
        self._hits: list[Hit] = []
        self._current_hit = -1
        self._search_term = ""
        self._search_page: int | None = None
        self._anchor: QPoint | None = None
        self._selection: tuple[int, list[Word]] | None = None
        self._runner = SliceRunner(self._step, self)

    # -- document and geometry -------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return len(self._sizes)

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def busy(self) -> bool:
        return self._runner.busy

    def set_document(self, doc: Any) -> None:
        self._doc = doc
        self._sizes = [(page.rect.width, page.rect.height) for page in doc]
        self._done.clear()
        self._lists.clear()
        self._words.clear()
        self._build = None
        self._selection = None
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
        scale = self._scale()
        return sorted(page for page, (s, _) in self._done.items() if s == scale)

    def _scale(self) -> float:
        return self._zoom * self.devicePixelRatioF()

    # -- rendering -------------------------------------------------------------------------

    def _step(self) -> bool:
        """One bounded piece of work: a band of a needed page, else a page of the search."""
        if self._doc is None:
            return False
        if self._build is not None and self._build.scale != self._scale():
            self._build = None
        if self._build is None:
            page = self._next_needed()
            if page is not None:
                self._build = self._start_build(page)
        if self._build is not None:
            self._render_band(self._build)
            return True
        if self._search_page is not None:
            self._search_step(self._search_page)
            return True
        return False

    def _wanted_pages(self) -> list[int]:
        visible = self.visibleRegion().boundingRect()
        if visible.isEmpty() or not self._sizes:
            return []
        first, last = self.page_at(visible.top()), self.page_at(visible.bottom())
        pages = list(range(first, last + 1))
        pages += [p for p in (last + 1, first - 1) if 0 <= p < self.page_count]
        return pages

    def _next_needed(self) -> int | None:
        scale = self._scale()
        for page in self._wanted_pages():
            done = self._done.get(page)
            if done is None or done[0] != scale:
                return page
        return None

    def _display_list(self, page: int) -> Any:
        if page in self._lists:
            self._lists.move_to_end(page)
            return self._lists[page]
        display_list = self._doc[page].get_displaylist()
        self._lists[page] = display_list
        while len(self._lists) > MAX_DISPLAY_LISTS:
            self._lists.popitem(last=False)
        return display_list

    def _start_build(self, page: int) -> _Build:
        scale = self._scale()
        width, height = self._sizes[page]
        image = QImage(max(1, round(width * scale)), max(1, round(height * scale)), QImage.Format.Format_RGB32)
        image.fill(Qt.GlobalColor.white)
        return _Build(page, scale, image, self._display_list(page))

    def _render_band(self, build: _Build) -> None:
        image = build.image
        band = max(16, BAND_PIXELS // image.width())
        y0, y1 = build.next_y, min(image.height(), build.next_y + band)
        scale = build.scale
        clip = mupdf().Rect(0, y0 / scale, image.width() / scale, y1 / scale)
        pix = build.display_list.get_pixmap(matrix=mupdf().Matrix(scale, scale), clip=clip, alpha=False)
        # The QImage only borrows the pixmap's buffer: drawing it copies before `pix` goes away.
        band_image = QImage(pix.samples_mv, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888)
        painter = QPainter(image)
        painter.drawImage(QPoint(pix.x, pix.y), band_image)
        painter.end()
        del band_image, pix
        build.next_y = y1
        page_rect = self.page_rect(build.page)
        self.update(page_rect)
        if y1 >= image.height():
            self._build = None
            self._done[build.page] = (scale, image)
            self._evict()
            self.page_rendered.emit(build.page)

    def _evict(self) -> None:
        pixels = sum(image.width() * image.height() for _, image in self._done.values())
        while pixels > CACHE_PIXELS and len(self._done) > 1:
            _, (_, image) = self._done.popitem(last=False)
            pixels -= image.width() * image.height()

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
        return self._search_page is not None

    def start_search(self, term: str) -> None:
        """Search page by page in slices; hits arrive through `hits_changed`."""
        self._search_term = term.strip()
        self._hits = []
        self._current_hit = -1
        self._search_page = 0 if self._search_term and self.page_count else None
        self.update()
        self.hits_changed.emit()
        if self._search_page is not None:
            self._runner.kick()

    def set_current_hit(self, number: int) -> None:
        self._current_hit = number
        self.update()

    def _search_step(self, page: int) -> None:
        rects = self._doc[page].search_for(self._search_term)
        self._hits.extend(Hit(page, QRectF(r.x0, r.y0, r.width, r.height)) for r in rects)
        self._search_page = page + 1 if page + 1 < self.page_count else None
        if rects:
            self.update(self.page_rect(page))
            self.hits_changed.emit()
        if self._search_page is None:
            self.search_finished.emit()

    # -- text selection --------------------------------------------------------------------

    def words(self, page: int) -> list[Word]:
        if page not in self._words:
            self._words[page] = self._doc[page].get_text("words")
            while len(self._words) > MAX_WORD_PAGES:
                self._words.popitem(last=False)
        return self._words[page]

    def page_text(self, page: int) -> str:
        text: str = self._doc[page].get_text()
        return text

    def select_rect(self, page: int, rect: QRectF) -> None:
        """Select the words on `page` touching `rect` (PDF points)."""
        chosen = [w for w in self.words(page) if QRectF(w[0], w[1], w[2] - w[0], w[3] - w[1]).intersects(rect)]
        self._selection = (page, chosen) if chosen else None
        self.update()

    def selected_text(self) -> str:
        if self._selection is None:
            return ""
        lines: list[str] = []
        last_line: tuple[int, int] | None = None
        for word in sorted(self._selection[1], key=lambda w: (w[5], w[6], w[7])):
            line = (word[5], word[6])
            if line == last_line:
                lines[-1] += " " + word[4]
            else:
                lines.append(word[4])
                last_line = line
        return "\n".join(lines)

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
        scale = self._scale()
        for page in range(self.page_at(exposed.top()), self.page_at(exposed.bottom()) + 1):
            rect = self.page_rect(page)
            painter.fillRect(rect.translated(2, 3), _PAGE_SHADOW)
            painter.fillRect(rect, Qt.GlobalColor.white)
            done = self._done.get(page)
            if done is not None:
                self._done.move_to_end(page)
                painter.drawImage(QRectF(rect), done[1])
            if self._build is not None and self._build.page == page and done is None:
                painter.drawImage(QRectF(rect), self._build.image)
            needs_work = needs_work or done is None or done[0] != scale
            self._paint_marks(painter, page)
        painter.end()
        if needs_work:
            self._runner.kick()

    def _paint_marks(self, painter: QPainter, page: int) -> None:
        for number, hit in enumerate(self._hits):
            if hit.page == page:
                painter.fillRect(self.to_canvas(page, hit.rect), _CURRENT_HIT if number == self._current_hit else _HIT)
        if self._selection is not None and self._selection[0] == page:
            for w in self._selection[1]:
                painter.fillRect(self.to_canvas(page, QRectF(w[0], w[1], w[2] - w[0], w[3] - w[1])), _SELECTION)
