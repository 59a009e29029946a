"""Shared test set-up: offscreen Qt, asyncio for anyio tests, and an isolated home."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
# No test may read or write the developer's real configuration, data or keyring.
_home = tempfile.mkdtemp(prefix="mcp-desk-tests-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_home, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_home, "data")
os.environ["XDG_CACHE_HOME"] = os.path.join(_home, "cache")

import pytest  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
