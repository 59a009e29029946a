"""The demo's binary resources (a PDF report and a PNG diagram), drawn with PyMuPDF on first read.

Generating instead of shipping binaries keeps the repository diff-able and the text exactly in sync
with the code; PyMuPDF is imported only here and only on first use, so the server starts fast.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from desktop_app.demo_server.diagram_png import build_diagram
from desktop_app.demo_server.drawing import mupdf
from desktop_app.demo_server.report_pdf import build_report

_lock = threading.Lock()
_cache: dict[str, bytes] = {}


def _cached(key: str, build: Callable[[], bytes]) -> bytes:
    """Build once per process; the lock stops two concurrent first reads from both paying for it."""
    with _lock:
        data = _cache.get(key)
        if data is None:
            data = _cache[key] = build()
        return data


def cached_size(key: str) -> int | None:
    """Size of an already generated asset; None until first read, so listing never forces generation."""
    data = _cache.get(key)
    return None if data is None else len(data)


def report_pdf() -> bytes:
    """The demo report: a multi-page, searchable PDF for the native viewer and for text extraction."""
    return _cached("report.pdf", build_report)


def diagram_png() -> bytes:
    """An 800x500 architecture diagram for the image viewer."""
    return _cached("diagram.png", build_diagram)


def pdf_text(data: bytes) -> str:
    """A PDF's text layer, which is what a model gets from a PDF instead of its bytes."""
    with mupdf().open(stream=data, filetype="pdf") as doc:
        return "\n".join(str(page.get_text()) for page in doc)
