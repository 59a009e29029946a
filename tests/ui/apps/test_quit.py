"""Quitting right after leaving a chat with an app view: the views are torn down before their profiles go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[3]


def test_quitting_at_once_after_a_new_chat_closes_the_app_views_first() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.ui.apps.quit_after_new_chat"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "closed cleanly" in done.stdout
    assert "still not deleted" not in done.stderr  # a page outliving its profile: Qt warns, then crashes
