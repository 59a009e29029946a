"""Finding a module as the other finders would: two hooks that each ask elsewhere never ask each other forever."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from desktop_app.core.model.import_hooks import spec_elsewhere


class _AskingElsewhere:
    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[ModuleSpec | None] = []

    def find_spec(self, name: str, path: Sequence[str] | None, target: object = None) -> ModuleSpec | None:
        if name != self.name:
            return None
        spec = spec_elsewhere(self, name, path, target)
        self.found.append(spec)
        return spec


def test_two_hooks_asking_elsewhere_for_one_module_each_find_it_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hooked_module.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first, second = _AskingElsewhere("hooked_module"), _AskingElsewhere("hooked_module")
    monkeypatch.setattr(sys, "meta_path", [first, second, *sys.meta_path])

    spec = importlib.util.find_spec("hooked_module")

    assert spec is not None and spec.origin == str(tmp_path / "hooked_module.py")
    assert [s is not None for s in first.found] == [True]
    assert [s is not None for s in second.found] == [True]  # asked by the first, it skipped the first
