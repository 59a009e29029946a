"""The MuPDF worker process: PDF pages and images for the app, one request at a time, over stdin and stdout.

MuPDF's Python bindings hold the GIL for the whole of each call (measured: a 90 MB vector page
held it 40 s in one `get_pixmap`), so a thread would freeze the window just the same, and MuPDF's
cookie could not be used to abort: nothing in the process can run to set `abort` until the call
returns. In a process of its own the work runs in parallel, and `mupdf_worker` enforces the time
budget from outside by ending the process.

Messages travel as `pipe_messages` frames.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from typing import IO, Any, Final

from desktop_app.core.mupdf import load as load_mupdf
from desktop_app.core.pipe_messages import die_with_the_app, read_message, write_message

DOCUMENTS: Final = 4
"""Open documents kept; the oldest opened is closed first (`mupdf_worker` keeps the same account)."""
_PAGES: Final = 16

Request = dict[str, Any]
Reply = dict[str, Any]


class _Pages:
    """Open documents and, per page, its display list and text page, least recently used dropped."""

    def __init__(self) -> None:
        self.mupdf: Any = load_mupdf()
        self._documents: OrderedDict[str, Any] = OrderedDict()
        self._pages: OrderedDict[tuple[str, int], tuple[Any, Any]] = OrderedDict()

    def open(self, key: str, data: bytes) -> int:
        self._documents[key] = self.mupdf.open(stream=data, filetype="pdf")
        while len(self._documents) > DOCUMENTS:
            self.close(next(iter(self._documents)))
        return self.page_count(key)

    def page_count(self, key: str) -> int:
        return int(self._documents[key].page_count)

    def close(self, key: str) -> None:
        self._documents.pop(key, None)
        self._pages = OrderedDict((k, v) for k, v in self._pages.items() if k[0] != key)

    def display_list(self, key: str, page: int) -> Any:
        return self._page(key, page)[0]

    def text_page(self, key: str, page: int) -> Any:
        display_list, text = self._page(key, page)
        if text is None:
            text = self.mupdf.TextPage(display_list.get_textpage(flags=self.mupdf.TEXTFLAGS_TEXT))
            self._pages[(key, page)] = (display_list, text)
        return text

    def _page(self, key: str, page: int) -> tuple[Any, Any]:
        found = self._pages.get((key, page))
        if found is None:
            found = (self._documents[key][page].get_displaylist(), None)
            self._pages[(key, page)] = found
            while len(self._pages) > _PAGES:
                self._pages.popitem(last=False)
        self._pages.move_to_end((key, page))
        return found


def _handle(pages: _Pages, request: Request) -> Reply:
    op, key = request["op"], request.get("key", "")
    if op == "open":
        return {"pages": pages.open(key, request["data"])}
    if op == "count":
        return {"pages": pages.page_count(key)}
    if op == "close":
        pages.close(key)
        return {}
    if op == "render":
        mupdf = pages.mupdf
        scale = request["scale"]
        clip = mupdf.Rect(*request["clip"]) if request.get("clip") else None
        pix = pages.display_list(key, request["page"]).get_pixmap(
            matrix=mupdf.Matrix(scale, scale), clip=clip, alpha=False
        )
        size = {"width": pix.width, "height": pix.height, "stride": pix.stride}
        return {"x": pix.x, "y": pix.y, **size, "samples": bytes(pix.samples_mv)}
    if op == "words":
        return {"words": pages.text_page(key, request["page"]).extractWORDS()}
    if op == "text":
        return {"text": pages.text_page(key, request["page"]).extractText()}
    if op == "search":
        rects = pages.text_page(key, request["page"]).search(request["term"], quads=0)
        return {"rects": [(r.x0, r.y0, r.x1, r.y1) for r in rects]}
    if op == "shrink_image":
        return _shrink(pages.mupdf, request["data"], request["max_side"], request["max_bytes"])
    raise ValueError(f"unknown request {op!r}")


def _shrink(mupdf: Any, data: bytes, max_side: int, max_bytes: int) -> Reply:
    """The image scaled to fit `max_side`, as PNG, or as JPEG when that is needed to fit `max_bytes`."""
    pix = mupdf.Pixmap(data)
    if pix.colorspace is None or pix.colorspace.n not in (1, 3):  # masks, CMYK: to RGB
        pix = mupdf.Pixmap(mupdf.csRGB, pix)
    scale = min(1.0, max_side / max(pix.width, pix.height))
    if scale < 1.0:
        pix = mupdf.Pixmap(pix, max(1, round(pix.width * scale)), max(1, round(pix.height * scale)))
    encoded, mime = pix.tobytes("png"), "image/png"
    if len(encoded) > max_bytes:
        opaque = mupdf.Pixmap(pix, 0) if pix.alpha else pix
        encoded, mime = opaque.tobytes("jpeg", jpg_quality=85), "image/jpeg"
    return {"data": encoded, "mime": mime, "width": pix.width, "height": pix.height}


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """Answer requests until the app closes the pipe; a failing request answers with its error."""
    pages = _Pages()
    write_message(replies, {"ready": True})
    while (request := read_message(requests)) is not None:
        try:
            reply = _handle(pages, request)
        except Exception as exc:
            reply = {"error": str(exc) or type(exc).__name__}
        write_message(replies, reply)


def main(argv: list[str] | None = None) -> int:
    """The worker's entry point (`mcp-desk --mupdf-worker` in a frozen build); it takes no arguments."""
    die_with_the_app()
    # The replies own stdout: nothing else may print there.
    replies, sys.stdout = sys.stdout.buffer, sys.stderr
    serve(sys.stdin.buffer, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
