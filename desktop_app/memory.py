"""Process-wide settings that keep the window's process light; `configure_process()` runs at start.

PySide's import hook (its opt-in `__feature__` switches, e.g. `snake_case`) reads the whole
source of every module imported after PySide itself to look for the word "PySide6", and
Python's `linecache` then keeps every line it read for the life of the process. For the model
library's import (about 2,300 modules) that costs about a second of CPU and 50 MB of memory
that nothing else ever reads. MCP Desk uses none of those switches (`tests/test_memory.py`
checks that no module imports `__feature__`), so no module needs its source read: a module
that opts in would still be seen, since importing `__feature__` registers its importer anyway.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)


def _uses_no_features(module: ModuleType) -> bool:
    """Stands in for PySide's source scan: no module of this process opts into a `__feature__`."""
    return False


def skip_pyside_source_scan() -> bool:
    """Stop PySide's import hook from reading every later module's source; False where PySide
    has no such hook (not imported yet, or a version without it)."""
    feature: Any = sys.modules.get("shibokensupport.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        return False
    feature._mod_uses_pyside = _uses_no_features  # see the module docstring
    return True


def release_free_heap() -> None:
    """Hand free pages of the C heap back to the system (glibc keeps them after a burst of
    allocations, e.g. a tokenizer dropped or a library's import in a worker thread)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim` from the symbols already in this process (no library search, which
    runs `ldconfig` each time); None where the C library has none (not Linux, or musl)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here, not at the top: ~5 ms before the window is painted

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError) as exc:
        log.debug("malloc_trim unavailable: %s", exc)
        return None
    return trim


def configure_process() -> None:
    """Apply the process-wide settings; call once PySide is imported, before the rest of the app."""
    skip_pyside_source_scan()
