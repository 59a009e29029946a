"""`mcp-desk --self-test` passes on a working installation and reports each check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_self_test_passes_from_source(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--self-test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "9 passed, 0 failed"
    checks = ("demo server", "catalog", "long text resource", "PDF resource", "PDF page render", "MCP App view")
    for check in (*checks, "model call", "token counting"):
        assert any(line.startswith("PASS") and check in line for line in lines), check
    assert "application/pdf" in done.stdout
    assert "Notes board (ui://demo/notes-board) initialized and painted" in done.stdout
    assert "WebRTC off, network via the relay" in done.stdout
    assert "openai and anthropic dialects streamed text and a tool call, and reported a failure" in done.stdout
    # The probe secret is removed again, whichever backend held it.
    plaintext = tmp_path / "data" / "mcp-desk" / "secrets.plaintext.cfg"
    assert not plaintext.exists() or "probe-" not in plaintext.read_text()
