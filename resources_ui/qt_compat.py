"""Work-arounds for a PySide6 6.12 reference-counting bug: None is released once too often.

When C++ calls a Python `data()`/`headerData()`/`loadResource()` override that returns None,
PySide converts it to an invalid QVariant and drops one reference to None too many (measured:
-1 per call; strings, ints and Qt values are fine). A browser with thousands of rows makes
millions of such calls, None's count reaches zero and the interpreter aborts ("none_dealloc").
Returning `no_data()` pays the reference back first. Calling a Qt method that returns nothing
(`QPainter.save`, `setPen`, `drawText`, ...) does the same, once per call: code that paints
pays back what it lost with `repay_none`. Should PySide fix the bug, the extra references on
the immortal-in-practice None are harmless.
"""

from __future__ import annotations

import ctypes
import sys

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None


def no_data() -> None:
    """None for "no value", safe to return from a QVariant-returning override called by Qt."""
    _incref(None)


def none_count() -> int:
    return sys.getrefcount(None)


def repay_none(since: int) -> None:
    """Give None back the references lost since `none_count()` returned `since`."""
    for _ in range(since - sys.getrefcount(None)):
        _incref(None)
