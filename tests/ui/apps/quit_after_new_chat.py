"""Run as a program: a model's call shows an app view in the chat, New chat, then quit at once (exits 0 when
the window closed cleanly; see `quit_program`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QApplication

from tests.llm_server import ScriptedLLM
from tests.ui.apps.quit_program import DEADLINE, run_program, window_with_an_app_view


async def scenario(app: QApplication, home: Path, llm: ScriptedLLM) -> None:
    window, running, _slot = await window_with_an_app_view(app, home, llm)
    window.chat_actions.new_chat()
    window.close()  # at once: the view is still being torn down
    await asyncio.wait_for(running, DEADLINE)


if __name__ == "__main__":
    run_program(scenario)
