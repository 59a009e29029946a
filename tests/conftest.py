"""Shared test set-up: an isolated home, asyncio for anyio tests, and Qt prepared for the tests that ask
for it (`qapp`): the core's and the command line's tests load no Qt at all."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

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
from tests.file_modes import WIDE_UMASK  # noqa: E402

if TYPE_CHECKING:
    from tests.llm_server import ScriptedLLM


@pytest.fixture(scope="session")
def qapp_cls() -> type:
    """pytest-qt's application class, with Qt prepared first: QtWebEngine before the QApplication exists,
    and None's reference count guarded (a whole suite of Qt calls would otherwise use it up). Imported here,
    on first use, so that a run of Qt-free tests never loads Qt."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.pyside_fixes import reserve_none_references
    from desktop_app.ui.apps.web_engine import prepare_application

    prepare_application()
    reserve_none_references()
    return QApplication


@pytest.fixture
def wide_umask() -> Iterator[None]:
    """The umask most systems ship (files 0644, folders 0755): what private files must not rely on."""
    previous = os.umask(WIDE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys for the model library to send (it refuses to send a request without one); a module takes them with
    `pytest.mark.usefixtures("provider_key")`, and one that checks how a key is masked sets its own."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLM]:
    """A scripted model provider on 127.0.0.1, and an API key for the model library to send it."""
    from tests.llm_server import ScriptedLLM  # its web server loads only for the tests that talk to a model

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ScriptedLLM() as server:
        yield server


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
        # What outlives a full collection stays (Qt, the model library, the session's fixtures): set aside,
        # the next collection walks only what was made since, not the ~400,000 objects loaded (~170 ms each).
        gc.freeze()


@pytest.fixture(autouse=True)
def _delete_windows_left_open(request: pytest.FixtureRequest) -> Iterator[None]:
    """Delete the windows a Qt test made and left (a dialog or an editor built without `qtbot.addWidget`).

    Left alive they stay on the worker to the end of the run, and every later test that polishes every
    widget (a change of theme sets the application's sheet) pays for them: 180 widgets per server editor,
    thousands by the end of a worker's share of the suite (a theme test took 3 s of CPU instead of 5 ms).
    Torn down before `_collect_qt_garbage` collects.
    """
    if not {"qapp", "qtbot"} & set(request.fixturenames):
        yield
        return
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication
    from shiboken6 import Shiboken

    before = set(QApplication.topLevelWidgets())
    yield
    left = [
        widget
        for widget in QApplication.topLevelWidgets()
        if widget not in before and widget.parentWidget() is None and Shiboken.createdByPython(widget)
    ]
    for widget in left:
        widget.close()
        widget.deleteLater()
    if left:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def _no_mupdf_worker_outlives_its_test() -> Iterator[None]:
    """MuPDF's worker processes live as long as the app; a test is one app's life (tests count children)."""
    yield
    close_all_workers()


@pytest.fixture(autouse=True)
def _test_servers_in_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host opens the test servers in-process (`tests/in_process.py`) unless the test is about the
    process or the stdio transport (`@pytest.mark.stdio`): then over stdio, their processes forked from one
    that has imported the SDK (`tests/server_forks.py`), or started afresh when the test is about what a
    process leaves behind (`@pytest.mark.own_process`)."""
    if request.node.get_closest_marker("own_process") is not None:
        return
    from tests.in_process import forked_stdio, in_process_or_stdio

    stdio = request.node.get_closest_marker("stdio") is not None
    monkeypatch.setattr("desktop_app.core.host.open_transport", forked_stdio if stdio else in_process_or_stdio)


_MODULE_SIGNS: dict[str, tuple[str, ...]] = {
    "webengine": ("desktop_app.ui.apps", "QWebEngine", "tests.ui.apps"),
    "npm": ("tests.servers.everything", "node_modules", "pytest.mark.npm"),
    "process": (
        "subprocess",
        "fixture_config",
        "stdio_bridge",
        "FIXTURE_SCRIPT",
        "demo_config",
        "run_window_scenario",
        "sys.executable",
        "mupdf_worker",
    ),
}
"""What a test module's text shows it needs, for the markers `make test-quick` leaves out."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """Where tests start processes, the test servers' forking process (`tests/server_forks.py`) starts now,
    while the first tests run, rather than inside the first test that starts a server."""
    if any(item.get_closest_marker("process") for item in session.items):
        from tests.server_forks import start

        start()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with what it needs (`window`, `webengine`, `npm`, `process`), read off its fixtures and
    its module's text, so that selecting by marker never depends on someone remembering to add one."""
    texts: dict[str, str] = {}
    for item in items:
        path = str(item.path)
        if path not in texts:
            texts[path] = item.path.read_text(encoding="utf-8") if item.path.suffix == ".py" else ""
        if {"qapp", "qtbot"} & set(getattr(item, "fixturenames", ())):
            item.add_marker("window")
        for marker, signs in _MODULE_SIGNS.items():
            if any(sign in texts[path] for sign in signs):
                item.add_marker(marker)
