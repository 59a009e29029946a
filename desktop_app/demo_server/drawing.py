"""What the demo's drawings share: PyMuPDF imported on first use, the palette and the page sizes."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pymupdf

Color = tuple[float, float, float]

INK: Final[Color] = (0.13, 0.15, 0.19)
MUTED: Final[Color] = (0.42, 0.45, 0.50)
ACCENT: Final[Color] = (0.16, 0.38, 0.78)
ACCENT_LIGHT: Final[Color] = (0.87, 0.92, 0.99)
WARM: Final[Color] = (0.90, 0.49, 0.13)
WARM_LIGHT: Final[Color] = (0.99, 0.93, 0.85)
GREEN_LIGHT: Final[Color] = (0.88, 0.96, 0.90)
GRID: Final[Color] = (0.85, 0.86, 0.88)
WHITE: Final[Color] = (1.0, 1.0, 1.0)

PAGE_W: Final = 595.0  # A4 in points
PAGE_H: Final = 842.0
MARGIN: Final = 60.0
FOOTER_H: Final = 40.0
DIAGRAM_W: Final = 800
DIAGRAM_H: Final = 500


# Base-14 fonts keep the file small and the text extractable; they cover Latin-1, so the drawings'
# text sticks to ASCII punctuation.
REGULAR: Final = "helv"
BOLD: Final = "hebo"
MONO: Final = "cour"


def mupdf() -> Any:
    """PyMuPDF, imported on first use (it costs ~100 ms); typed as Any since its constructors are untyped."""
    return importlib.import_module("pymupdf")


def inset(rect: Any, left: float, top: float, right: float, bottom: float) -> Any:
    """A rectangle with each edge moved by the given offset, for text padding inside boxes."""
    return mupdf().Rect(rect.x0 + left, rect.y0 + top, rect.x1 + right, rect.y1 + bottom)


def arrow(
    page: pymupdf.Page,
    start: tuple[float, float],
    end: tuple[float, float],
    color: Color,
    *,
    head: float = 7.0,
    both: bool = False,
) -> None:
    """A straight arrow; PyMuPDF has no arrowhead primitive, so heads are filled triangles."""
    pymupdf = mupdf()

    page.draw_line(start, end, color=color, width=1.6)
    ends = [(start, end), (end, start)] if both else [(start, end)]
    for tail, tip in ends:
        direction = pymupdf.Point(tip) - pymupdf.Point(tail)
        unit = direction / abs(direction)
        normal = pymupdf.Point(-unit.y, unit.x)
        base = pymupdf.Point(tip) - unit * head * 1.6
        page.draw_polyline(
            [pymupdf.Point(tip), base + normal * head, base - normal * head],
            color=color,
            fill=color,
            width=0.5,
            closePath=True,
        )
