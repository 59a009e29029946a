"""Each CLI test gets its own config and data folders (servers.json, secrets, bundles); `run` and `replay`
tests get a scripted model provider on 127.0.0.1. A command run in-process leaves the logging as it found it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def _pytests(handler: logging.Handler) -> bool:
    """pytest's own capture of log records: it adds and removes its handlers around each phase of a test."""
    return type(handler).__module__.startswith("_pytest")


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A command's `main` routes the root logger to the stderr of the moment (`install_logging`), which in a test
    is pytest's capture, closed when the test ends: the handler goes, and the root logger's level is put back."""
    root = logging.getLogger()
    before = [handler for handler in root.handlers if not _pytests(handler)]
    level = root.level
    yield
    for handler in [h for h in root.handlers if not _pytests(h) and h not in before]:
        root.removeHandler(handler)
    for handler in [h for h in before if h not in root.handlers]:
        root.addHandler(handler)
    root.setLevel(level)
