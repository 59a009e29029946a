"""The first message of a session costs what a message costs: building a bubble makes PySide wrap nothing unknown.

A child still being built (a layout, in the bubble's `__init__`) is a bare QObject to PySide; asking the child
event for it made PySide try every QObject class it knows, realising about 80 of them (20 ms on the event loop,
the first time). Checked in a fresh interpreter: a test process has realised them long before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import json, sys
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])
from desktop_app.ui.conversation.message_bubble import MessageBubble

def realised():
    return {f"{m.__name__}.{name}" for m in (QtCore, QtGui, QtWidgets) for name in vars(m)}

before = realised()
for role in ("user", "assistant"):
    MessageBubble(role, "Hello").show()
    app.processEvents()
print(json.dumps(sorted(realised() - before)))
"""


def test_a_bubble_is_built_without_realising_unrelated_qt_classes() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    realised = json.loads(done.stdout.strip().splitlines()[-1])
    unrelated = [name for name in realised if name.endswith(("QFileSystemWatcher", "QPdfWriter", "QSharedMemory"))]
    assert unrelated == [], f"PySide searched every QObject class to wrap a child: {realised}"
