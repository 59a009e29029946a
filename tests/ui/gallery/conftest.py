"""Every gallery test gets its own data folder (secrets, bundles), cache (registry, cards), npx cache,
and a `python` on PATH that has the fixture servers' packages (bundles run `python`).

They live under /var/tmp, not /tmp: installed servers run sandboxed, and a sandboxed server gets a /tmp of
its own, which would hide a bundle unpacked there."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="mcp-desk-gallery-") as folder:
        root = Path(folder)
        monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
        monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
        monkeypatch.setenv("HOME", str(root / "home"))
        monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
        yield root
