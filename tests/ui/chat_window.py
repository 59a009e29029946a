"""The real window with the fixture server and a scripted model, for the tests that hold a conversation in it."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.llm import load_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.shell.main_window import MainWindow
from tests.hosting import FIXTURE_SCRIPT, eventually
from tests.llm_server import ScriptedLLM
from tests.window_kit import run_window_scenario

Scenario = Callable[[MainWindow, ScriptedLLM], Awaitable[None]]
W = TypeVar("W", bound=QWidget)

until = functools.partial(eventually, timeout=60.0)


def run_app(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM | None, scenario: Scenario, *, demo: bool = False
) -> None:
    """Run the real composition root with the fixture server and `scenario`, then quit as a user would.

    With `demo`, no server is configured, so the embedded demo server runs instead.
    """
    servers = {} if demo else {"fx": {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}}
    chosen = ModelSettings("openai/scripted", api_base=llm.url) if llm is not None else None
    settings = AppSettings(chosen, provider="compatible") if chosen is not None else None

    async def steps(window: MainWindow) -> None:
        if llm is not None:
            # The window loads the model library when the user starts typing; its first import takes
            # tens of seconds on a busy machine, which is not what these tests time.
            await asyncio.wait_for(load_litellm(), 120)
        await scenario(window, llm)  # type: ignore[arg-type]

    run_window_scenario(qapp, tmp_path, steps, servers=servers, settings=settings, ready=1)


def bubbles(window: MainWindow, role: str) -> list[MessageBubble]:
    return [b for b in shown(window, MessageBubble) if b.role == role]


def shown(window: MainWindow, kind: type[W]) -> list[W]:
    """The widgets of `kind` in the conversation now (a cleared view's widgets are hidden, then deleted)."""
    return [w for w in window.conversation.findChildren(kind) if not w.isHidden()]


def run_fixture_window(qapp: QApplication, tmp_path: Path, scenario: Callable[[MainWindow], Awaitable[None]]) -> None:
    """The real composition root with the fixture server "fx" over stdio and no model chosen; quit as a user would."""
    fixture = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}
    run_window_scenario(qapp, tmp_path, scenario, servers={"fx": fixture}, ready=1)
