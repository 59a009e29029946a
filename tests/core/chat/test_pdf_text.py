"""PDF text for the model: a page too heavy to read is skipped with a note, and the app stays live."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from desktop_app.core.chat.pdf_text import PageRangeError, pdf_text
from tests.endless_pdf import pdf_with_an_endless_page
from tests.pdfs import LIGHT_TEXT, pdf_with_pages

pytestmark = pytest.mark.anyio


async def test_a_heavy_page_is_skipped_with_a_note_and_the_loop_keeps_turning() -> None:
    data = pdf_with_an_endless_page(3, endless_page=2)  # page 2 is never read to its end
    turns = 0
    with anyio.fail_after(60):
        work = asyncio.ensure_future(pdf_text(data, None, budget=0.5))
        while not work.done():
            await asyncio.sleep(0.01)
            turns += 1
        text = work.result()
    # Read on the event loop, the pages would end before this loop turned again.
    assert turns > 1, "the event loop did not turn while the pages were read"
    assert LIGHT_TEXT.format(number=1) in text and LIGHT_TEXT.format(number=3) in text
    assert "[Page 2 of 3]\n[This page is too heavy to read: its content takes more than 0.5 s to process.]" in text


async def test_page_ranges_are_checked_against_the_document() -> None:
    data = pdf_with_pages(0, 0)
    assert LIGHT_TEXT.format(number=2) in await pdf_text(data, "2")
    with pytest.raises(PageRangeError, match="outside this PDF's pages 1-2"):
        await pdf_text(data, "3")
