"""Objects made to live as long as the process, kept out of garbage collection's way.

Importing the model library makes about 600,000 objects (modules, classes, functions) that live
until the app quits. Every collection walks the objects younger than its generation: while the
import runs, a collection every few milliseconds walked what the import had made so far, about
0.8 s of the import's 5 s on a two-core machine, and each full collection afterwards walked
all of it again. So collection waits while a `long_lived()` block runs, and the block ends by
freezing every object that exists (`gc.freeze`): later collections look only at newer objects.

The freeze also keeps the few cyclic garbage objects made meanwhile, anywhere in the process
(about 2,000 after the model library's import and first call): a bounded price, paid once.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_blocks = 0
_collecting_before = False


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """No collection while the block runs (CPython's own, or one asked with `collection_paused`);
    what exists when it ends is frozen. Blocks may overlap, in any threads."""
    global _blocks, _collecting_before
    with _lock:
        if _blocks == 0:
            _collecting_before = gc.isenabled()
            gc.disable()
        _blocks += 1
    try:
        yield
    finally:
        with _lock:
            gc.freeze()
            _blocks -= 1
            if _blocks == 0 and _collecting_before:
                gc.enable()


def collection_paused() -> bool:
    """Whether a `long_lived()` block runs: a collector of the app's own waits for its end."""
    return _blocks > 0
