"""What the window tests share: a scripted model behind a real HTTP server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QSettings

from desktop_app.core.model.llm import ready_litellm
from tests.llm_server import ScriptedLLM


@pytest.fixture
def llm(llm: ScriptedLLM) -> ScriptedLLM:
    """The scripted model, with the model library imported first: it takes seconds (tens on a loaded
    machine) and a turn's deadline should not pay for it."""
    ready_litellm()  # as the app loads it: offline, its first call made
    return llm


@pytest.fixture(autouse=True)
def _first_start_window() -> Iterator[None]:
    """Each test's window starts as on a first start: the geometry and docks a window saves on closing (a
    viewer one test closed, a narrow size) would otherwise be the next test's, on the same worker."""
    QSettings().remove("window")
    yield
    QSettings().remove("window")
