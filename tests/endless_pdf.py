"""A PDF page that no machine finishes: heavy by construction, not by how fast the machine is.

Its content draws a form that draws another form ten times, twelve levels deep, over one short
stroke: 10¹² strokes from a file of a few kilobytes. At MuPDF's tens of microseconds a stroke that
is months of work, so any budget a test gives runs out on it, however fast the machine. (The heavy
pages of `tests/pdfs.py` are only heavy on a slow enough machine.)
"""

from __future__ import annotations

from typing import Final

import pymupdf

from tests.pdfs import LIGHT_TEXT

FAN_OUT: Final = 10
DEPTH: Final = 12
_FORM: Final = "<< /Type /XObject /Subtype /Form /BBox [0 0 600 850]{resources} >>"


def pdf_with_an_endless_page(page_count: int = 1, endless_page: int = 1) -> bytes:
    """`page_count` light pages of text (`LIGHT_TEXT`), page `endless_page` (1-based) also endless."""
    doc = pymupdf.open()
    for number in range(1, page_count + 1):
        page = doc.new_page()
        page.insert_text((72, 72), LIGHT_TEXT.format(number=number))
        if number == endless_page:
            _draw_endlessly(doc, page)
    data: bytes = doc.tobytes(deflate=True)
    doc.close()
    return data


def _draw_endlessly(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    form = doc.get_new_xref()
    doc.update_object(form, _FORM.format(resources=""))
    doc.update_stream(form, b"10 10 m 580 830 l S")
    for _ in range(DEPTH):
        outer = doc.get_new_xref()
        doc.update_object(outer, _FORM.format(resources=f" /Resources << /XObject << /F {form} 0 R >> >>"))
        doc.update_stream(outer, b"/F Do " * FAN_OUT)
        form = outer
    kind, value = doc.xref_get_key(page.xref, "Resources")
    where, key = (int(value.split()[0]), "XObject") if kind == "xref" else (page.xref, "Resources/XObject")
    doc.xref_set_key(where, key, f"<< /Endless {form} 0 R >>")
    contents = page.get_contents()[0]
    doc.update_stream(contents, doc.xref_stream(contents) + b"\nq /Endless Do Q")
