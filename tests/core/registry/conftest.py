"""A populated registry fixture on 127.0.0.1 for the registry tests, and a home outside /tmp for the ones
that start what they install (installs are sandboxed, and a sandboxed server has a /tmp of its own)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers.registry_documents import populate
from tests.servers.registry_fixture import RegistryFixture, running_registry


@pytest.fixture
def registry() -> Iterator[RegistryFixture]:
    with running_registry() as fixture:
        populate(fixture)
        yield fixture


@pytest.fixture
def outside_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home and the app's folders under /var/tmp: a bundle unpacked in /tmp would be hidden from the
    sandboxed server it is (the sandbox gives every server a /tmp of its own)."""
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="mcp-desk-installs-") as folder:
        root = Path(folder)
        monkeypatch.setenv("HOME", str(root / "home"))
        for name, below in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
            monkeypatch.setenv(name, str(root / below))
        yield root
