"""PyMuPDF, the one way the app loads it: on first use, with MuPDF's messages sent to logging.

The import costs ~75 ms, so the window shows before any PDF is opened. By default MuPDF prints
its warnings and errors ("MuPDF error: syntax error in content stream") on stdout, where they
would mix with `mcp-desk run`'s answer; here they become records of the `pymupdf` logger, which
`log_routing` sends to the debug log.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any

_lock = threading.Lock()
_module: Any = None


def load() -> Any:
    """The `pymupdf` module (its API is untyped), configured once."""
    global _module
    with _lock:
        if _module is None:
            module = importlib.import_module("pymupdf")
            module.set_messages(pylogging=True, pylogging_name="pymupdf", pylogging_level=logging.WARNING)
            _module = module
        return _module
