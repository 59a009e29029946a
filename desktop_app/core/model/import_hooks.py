"""What the model library's import hooks share: a module found as every other finder would find it,
and a wrapper that answers for the object it wraps except where it says otherwise."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from typing import Any


class Delegate:
    """Whatever the wrapped object answers, except what a subclass answers itself."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


_asking = threading.local()
"""The (finder, module) pairs this thread is finding elsewhere: two finders that both ask elsewhere
skip each other instead of asking each other in turn forever."""


def spec_elsewhere(asking: object, name: str, path: Sequence[str] | None, target: object = None) -> ModuleSpec | None:
    """The spec of `name` as the import system's other finders (all but `asking`) find it."""
    active: set[tuple[int, str]] = _asking.__dict__.setdefault("pairs", set())
    active.add((id(asking), name))
    try:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is asking or find is None or (id(finder), name) in active:
                continue
            spec: ModuleSpec | None = find(name, path, target)
            if spec is not None and spec.loader is not None:
                return spec
        return None
    finally:
        active.discard((id(asking), name))
