"""A work-around for a PySide6 6.12 reference-counting bug in QVariant-returning overrides.

When C++ calls a Python `data()`/`headerData()`/`loadResource()` override that returns None,
PySide converts it to an invalid QVariant and drops one reference to None too many (measured:
-1 per call; strings, ints and Qt values are fine). A browser with thousands of rows makes
millions of such calls, None's count reaches zero and the interpreter aborts ("none_dealloc").
Returning `no_data()` pays the reference back first; should PySide fix the bug, the extra
reference on the immortal-in-practice None is harmless.
"""

from __future__ import annotations

import ctypes

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None


def no_data() -> None:
    """None for "no value", safe to return from a QVariant-returning override called by Qt."""
    _incref(None)
