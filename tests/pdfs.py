"""PDFs made by the tests themselves: light pages, and pages whose drawing is heavy.

A heavy page is a few kilobytes on disk: its content stream repeats one stroked line thousands
of times and compresses to almost nothing, as in the "219 KB PDF that expands to ~90 MB" report.
"""

from __future__ import annotations

import pymupdf

LIGHT_TEXT = "A light page, page {number}"


def pdf_with_pages(*heavy_segments: int) -> bytes:
    """One page per argument: 0 makes a light page with text, N > 0 a page of N crossing strokes."""
    doc = pymupdf.open()
    for number, segments in enumerate(heavy_segments, start=1):
        page = doc.new_page()
        page.insert_text((72, 72), LIGHT_TEXT.format(number=number))
        if segments:
            xref = page.get_contents()[0]
            stroke = b"10 10 m 580 830 l 580 10 m 10 830 l S "
            doc.update_stream(xref, doc.xref_stream(xref) + b"\nq 0.1 w " + stroke * (segments // 2) + b"Q")
    data: bytes = doc.tobytes(deflate=True)
    doc.close()
    return data
