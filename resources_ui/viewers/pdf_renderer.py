"""Draws a document's pages, and searches and reads them, in the PDF worker process.

MuPDF work never runs on the GUI thread (`core/mupdf_worker` says why): here it is a sequence of
requests, one at a time, awaited on the event loop while the window stays live. A page is drawn
in bands, each within the page budget; a page that overruns it is marked heavy, and is drawn only
if the user asks, with no budget and with progress. The worker's threads never touch Qt: replies
are turned into images here, on the GUI thread.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from PySide6.QtCore import QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPainter

from desktop_app.core.mupdf_worker import PAGE_BUDGET_S, MupdfWorker, MupdfWorkError, PageTooHeavy, new_document_key

log = logging.getLogger(__name__)

BAND_PIXELS: Final = 2_000_000
CACHE_PIXELS: Final = 48_000_000
MAX_WORD_PAGES: Final = 8
SLOW_AFTER_S: Final = 0.5
"""A page taking longer than this shows its progress."""

Word = tuple[float, float, float, float, str, int, int, int]
"""PyMuPDF's word tuple: x0, y0, x1, y1, text, block, line, word number."""


@dataclass
class _Build:
    """A page image being drawn band by band."""

    page: int
    scale: float
    image: QImage
    bands: int
    done: int = 0
    started: float = field(default_factory=time.monotonic)


class PdfRenderer(QObject):
    """Page images at one scale, a pixel-bounded cache of them, words for selection, and search."""

    page_updated = Signal(int)
    """Repaint this page: a band arrived, its progress moved, or it turned out to be heavy."""
    page_rendered = Signal(int)
    hits_found = Signal(int, list)
    """A page and its matches, as (x0, y0, x1, y1) in PDF points."""
    search_finished = Signal()

    def __init__(self, wanted: Callable[[], list[int]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker = MupdfWorker()
        self.budget: float = PAGE_BUDGET_S
        self._wanted = wanted
        self._key = ""
        self._data = b""
        self._sizes: list[tuple[float, float]] = []
        self._scale = 1.0
        self._done: OrderedDict[int, tuple[float, QImage]] = OrderedDict()
        self._build: _Build | None = None
        self.heavy: dict[int, str] = {}
        """Pages not drawn, and why (over budget, or the engine failed on them)."""
        self._forced: set[int] = set()
        self._words: OrderedDict[int, list[Word]] = OrderedDict()
        self._search_term = ""
        self._search_page: int | None = None
        self.search_skipped: list[int] = []
        self._task: asyncio.Task[None] | None = None
        self._ticker = QTimer(self)
        self._ticker.setInterval(250)
        self._ticker.timeout.connect(self._tick)

    # -- what the canvas asks ---------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def set_document(self, data: bytes, sizes: list[tuple[float, float]]) -> None:
        if self._forced and self._build is not None:
            self.worker.abort()  # an unbounded render of the old document: nobody wants it now
        self._key, self._data, self._sizes = new_document_key(), data, sizes
        self._done.clear()
        self._words.clear()
        self._build = None
        self.heavy.clear()
        self._forced.clear()
        self.search("")

    def set_scale(self, scale: float) -> None:
        self._scale = scale

    def image(self, page: int) -> tuple[float, QImage] | None:
        """The page's finished image (possibly at another scale), else the part drawn so far."""
        done = self._done.get(page)
        if done is not None:
            self._done.move_to_end(page)
            return done
        if self._build is not None and self._build.page == page:
            return self._build.scale, self._build.image
        return None

    def is_current(self, page: int) -> bool:
        """Whether the page needs no more drawing at the current scale."""
        done = self._done.get(page)
        return page in self.heavy or (done is not None and (done[0] == self._scale or page in self._forced))

    def rendered_pages(self) -> list[int]:
        return sorted(page for page, (scale, _) in self._done.items() if scale == self._scale)

    def progress(self, page: int) -> tuple[float, int, int] | None:
        """(seconds so far, bands done, bands) while this page takes long to draw."""
        build = self._build
        if build is None or build.page != page:
            return (0.0, 0, 0) if page in self._forced and page not in self._done else None
        elapsed = time.monotonic() - build.started
        if elapsed < SLOW_AFTER_S and page not in self._forced:
            return None
        return elapsed, build.done, build.bands

    def forced(self, page: int) -> bool:
        return page in self._forced

    def render_anyway(self, page: int) -> None:
        """Draw a heavy page with no time limit (the window stays usable meanwhile)."""
        self.heavy.pop(page, None)
        self._forced.add(page)
        self.page_updated.emit(page)
        self.kick()

    def words(self, page: int) -> list[Word] | None:
        """The page's words once read (after it is drawn), else None."""
        if page in self._words:
            self._words.move_to_end(page)
        return self._words.get(page)

    def search(self, term: str) -> None:
        self._search_term = term
        self.search_skipped = []
        self._search_page = 0 if term and self._sizes else None
        if self._search_page is not None:
            self.kick()

    @property
    def searching(self) -> bool:
        return self._search_page is not None

    def kick(self) -> None:
        """There may be work: do it in the background (idempotent)."""
        if not self._key or self.busy:
            return
        try:
            self._task = asyncio.get_running_loop().create_task(self._run())
        except RuntimeError:
            return  # no event loop runs (a widget shown outside the app): nothing can be drawn
        self._ticker.start()

    def shut_down(self) -> None:
        """Stop drawing and end the worker process (called as the canvas goes: no Qt calls here)."""
        if self._task is not None:
            self._task.cancel()
        self.worker.close()

    # -- the work ----------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while (step := self._next_step()) is not None:
                await step
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("PDF rendering stopped")
        finally:
            self._ticker.stop()

    def _next_step(self) -> Awaitable[None] | None:
        if self._build is not None and self._build.scale != self._scale and self._build.page not in self._forced:
            self._build = None
        if self._build is None:
            page = next((p for p in self._wanted() if not self.is_current(p)), None)
            if page is not None:
                self._build = self._start(page)
        if self._build is not None:
            return self._band(self._build)
        unread = next((p for p in self._wanted() if p in self._done and p not in self._words), None)
        if unread is not None and unread not in self.heavy:
            return self._read_words(unread)
        if self._search_page is not None:
            return self._search_step(self._search_term, self._search_page)
        return None

    def _start(self, page: int) -> _Build:
        width, height = self._sizes[page]
        image = QImage(
            max(1, round(width * self._scale)), max(1, round(height * self._scale)), QImage.Format.Format_RGB32
        )
        image.fill(Qt.GlobalColor.white)
        band = max(16, BAND_PIXELS // image.width())
        return _Build(page, self._scale, image, bands=-(-image.height() // band))

    async def _band(self, build: _Build) -> None:
        image, scale = build.image, build.scale
        band = -(-image.height() // build.bands)
        y0, y1 = build.done * band, min(image.height(), (build.done + 1) * band)
        request = {"op": "render", "scale": scale, "clip": (0, y0 / scale, image.width() / scale, y1 / scale)}
        budget = None if build.page in self._forced else self.budget
        key = self._key
        try:
            reply = await self.worker.request(key, self._data, request, page=build.page, budget=budget)
        except MupdfWorkError as exc:
            if key == self._key and build is self._build:
                self._build = None
                self._forced.discard(build.page)
                self.heavy[build.page] = _why(exc)
                self.page_updated.emit(build.page)
            return
        if key != self._key or build is not self._build:
            return  # the document or the zoom changed while the band was drawn
        _paint_band(image, reply)
        build.done += 1
        if build.done >= build.bands:
            self._build = None
            self._done[build.page] = (scale, image)
            self._evict()
        self.page_updated.emit(build.page)
        if build.done >= build.bands:
            self.page_rendered.emit(build.page)

    async def _read_words(self, page: int) -> None:
        key = self._key
        try:
            reply = await self.worker.request(key, self._data, {"op": "words"}, page=page, budget=self.budget)
        except MupdfWorkError:
            reply = {"words": []}
        if key == self._key:
            self._words[page] = [tuple(word) for word in reply["words"]]
            while len(self._words) > MAX_WORD_PAGES:
                self._words.popitem(last=False)

    async def _search_step(self, term: str, page: int) -> None:
        key = self._key
        try:
            request = {"op": "search", "term": term}
            reply = await self.worker.request(key, self._data, request, page=page, budget=self.budget)
            rects = list(reply["rects"])
        except MupdfWorkError:
            rects = []
            if key == self._key and term == self._search_term:
                self.search_skipped.append(page)
        if key != self._key or term != self._search_term or page != self._search_page:
            return
        self._search_page = page + 1 if page + 1 < len(self._sizes) else None
        if rects:
            self.hits_found.emit(page, rects)
        if self._search_page is None:
            self.search_finished.emit()

    def _evict(self) -> None:
        pixels = sum(image.width() * image.height() for _, image in self._done.values())
        while pixels > CACHE_PIXELS and len(self._done) > 1:
            _, (_, image) = self._done.popitem(last=False)
            pixels -= image.width() * image.height()

    def _tick(self) -> None:
        if self._build is not None and self.progress(self._build.page) is not None:
            self.page_updated.emit(self._build.page)


def _why(exc: MupdfWorkError) -> str:
    if isinstance(exc, PageTooHeavy):
        return f"This page is too heavy to render (its drawing takes more than {exc.budget:g} s)."
    return f"This page could not be rendered: {exc}"


def _paint_band(image: QImage, reply: dict[str, Any]) -> None:
    samples: bytes = reply["samples"]
    band = QImage(samples, reply["width"], reply["height"], reply["stride"], QImage.Format.Format_RGB888)
    painter = QPainter(image)
    painter.drawImage(QPoint(reply["x"], reply["y"]), band)  # copies before `samples` goes away
    painter.end()
