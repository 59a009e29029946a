"""PDF text for the model: a page too heavy to read is skipped with a note, and the app stays live."""

from __future__ import annotations

import asyncio
import time

import pytest

from desktop_app.core.chat.pdf_text import PageRangeError, pdf_text
from tests.pdfs import LIGHT_TEXT, pdf_with_pages

pytestmark = pytest.mark.anyio


async def _longest_stall(work: asyncio.Future[str]) -> float:
    """The longest the event loop went without a turn while `work` ran."""
    worst, last = 0.0, time.perf_counter()
    while not work.done():
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        worst, last = max(worst, now - last), now
    return worst


async def test_a_heavy_page_is_skipped_with_a_note_and_the_loop_keeps_turning() -> None:
    data = pdf_with_pages(0, 2_000_000, 0)  # page 2 takes seconds just to read
    work = asyncio.ensure_future(pdf_text(data, None, budget=0.5))
    stall = await _longest_stall(work)
    text = work.result()
    assert stall < 1.0, f"the event loop stalled {stall:.2f} s"
    assert LIGHT_TEXT.format(number=1) in text and LIGHT_TEXT.format(number=3) in text
    assert "[Page 2 of 3]\n[This page is too heavy to read: its content takes more than 0.5 s to process.]" in text


async def test_page_ranges_are_checked_against_the_document() -> None:
    data = pdf_with_pages(0, 0)
    assert LIGHT_TEXT.format(number=2) in await pdf_text(data, "2")
    with pytest.raises(PageRangeError, match="outside this PDF's pages 1-2"):
        await pdf_text(data, "3")
