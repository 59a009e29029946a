"""A PDF's text for the model, page by page, each page within the same budget as the viewer's.

Extraction runs in the PDF worker process (`core/mupdf_worker`): a page whose content takes longer
than `PAGE_BUDGET_S` to read is skipped with a note the model sees, instead of stalling the app.
"""

from __future__ import annotations

from typing import Final

from desktop_app.core.mupdf_worker import PAGE_BUDGET_S, MupdfWorker, PageTooHeavy, new_document_key

_worker = MupdfWorker()
"""One process for the model's reading, apart from the viewer's: neither waits for the other."""
HEADER: Final = "[PDF text extracted by MCP Desk, {which}; layout, images and charts are not included.]"


class PageRangeError(ValueError):
    """The requested pages are not a range, or fall outside the document."""


def parse_pages(spec: str, count: int) -> list[int]:
    """`"1-3,7"` -> `[0, 1, 2, 6]` (0-based), checked against the document's page count."""
    pages: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            start = int(first)
            end = int(last) if dash else start
        except ValueError:
            raise PageRangeError(f'\'{spec}\' is not a page range like "2" or "1-3,7"') from None
        if start < 1 or end < start or end > count:
            raise PageRangeError(f"pages '{part}' are outside this PDF's pages 1-{count}")
        pages.extend(range(start - 1, end))
    if not pages:
        raise PageRangeError('no pages given; use a range like "1-3"')
    return pages


async def pdf_text(data: bytes, pages: str | None, *, budget: float = PAGE_BUDGET_S) -> str:
    """The PDF's text per page, labelled; raises `PageRangeError`, or `MupdfWorkError` for a broken PDF."""
    key = new_document_key()
    try:
        count = (await _worker.request(key, data, {"op": "count"}, page=0, budget=budget))["pages"]
        indices = parse_pages(pages, count) if pages else list(range(count))
        chunks = []
        for index in indices:
            try:
                reply = await _worker.request(key, data, {"op": "text"}, page=index, budget=budget)
                text = str(reply["text"]).strip()
            except PageTooHeavy:
                text = f"[This page is too heavy to read: its content takes more than {budget:g} s to process.]"
            chunks.append(f"[Page {index + 1} of {count}]\n{text}")
    finally:
        await _worker.forget(key)
    which = f"pages {pages}" if pages else f"all {count} pages"
    return HEADER.format(which=which) + "\n\n" + "\n\n".join(chunks)
