"""Shared test set-up: offscreen Qt, asyncio for anyio tests, and an isolated home."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# QtWebEngine (MCP App views): software rendering, and no Chromium process sandbox when run as root
# (Chromium refuses to start one then); views keep their iframe sandbox and CSP either way.
_chromium = "--disable-gpu" + (" --no-sandbox" if hasattr(os, "geteuid") and os.geteuid() == 0 else "")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", _chromium)
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
# No test may read or write the developer's real configuration, data or keyring.
_home = tempfile.mkdtemp(prefix="mcp-desk-tests-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_home, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_home, "data")
os.environ["XDG_CACHE_HOME"] = os.path.join(_home, "cache")

import pytest  # noqa: E402

from desktop_app.core.mupdf_worker import close_all_workers  # noqa: E402
from desktop_app.pyside_fixes import reserve_none_references  # noqa: E402
from desktop_app.ui.apps.web_engine import prepare_application  # noqa: E402
from tests.file_modes import WIDE_UMASK  # noqa: E402

prepare_application()  # before pytest-qt creates the QApplication
reserve_none_references()  # a whole suite of Qt calls would otherwise use up None's count


@pytest.fixture
def wide_umask() -> Iterator[None]:
    """The umask most systems ship (files 0644, folders 0755): what private files must not rely on."""
    previous = os.umask(WIDE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _collect_qt_garbage(request: pytest.FixtureRequest) -> Iterator[None]:
    """Free a Qt test's reference cycles (widgets, events held by tracebacks) before the next test.

    Left to the collector they are freed at a random moment of a later test, possibly in the middle
    of Qt dispatching an event, which has crashed the interpreter.
    """
    yield
    if {"qapp", "qtbot"} & set(request.fixturenames):
        gc.collect()


@pytest.fixture(autouse=True)
def _no_mupdf_worker_outlives_its_test() -> Iterator[None]:
    """MuPDF's worker processes live as long as the app; a test is one app's life (tests count children)."""
    yield
    close_all_workers()
