"""A work-around for a defect of PySide6 6.12.0 that would abort a long-running app.

Each call of a Qt method that returns nothing (`setFixedHeight`, `setHtml`, `setPen`, `save`, …)
drops a reference to `None` that it never took, as do `QTextBlock.textList()` and
`QTextCursor.currentTable()` when they return `None`. On Python 3.11 `None` is an ordinary
object: once its count reaches zero the interpreter aborts ("Fatal Python error: none_dealloc").
The count is about 100,000 at start, and a window that paints and streams for hours makes many
millions of such calls, so `None` is given a reserve of references that no session can use up.
From Python 3.12 `None` is immortal: its count is never changed, and nothing is needed there.
"""

from __future__ import annotations

import sys
from typing import Final

RESERVE: Final = 1 << 50
"""References added to None's count: a million dropped a second would take 35 years to use them up."""


def reserve_none_references() -> bool:
    """Give `None` its reserve of references, once per process; False where it needs none."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12) or hasattr(sys, "gettotalrefcount"):
        return False  # immortal None (3.12+), another interpreter, or a debug build's other object layout
    if sys.getrefcount(None) > RESERVE:
        return True
    import ctypes  # here: ~5 ms, after the window is painted

    # The count is the first field of every object of a release build of CPython 3.11.
    ctypes.c_ssize_t.from_address(id(None)).value += RESERVE
    return True
