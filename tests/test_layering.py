"""The floors of docs/architecture.md hold: import-linter checks the contracts in pyproject.toml.

Every import must point down (the core below the bridge below the widgets; inside the core, the chat
above the host above one connection above what a connection uses), and no modules may import each
other in a loop. A failure names the import that runs back up.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_points_down_and_nothing_loops() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
