"""What a test of private files needs: a file's permission bits (the `wide_umask` fixture sets `WIDE_UMASK`)."""

from __future__ import annotations

import stat
from pathlib import Path

WIDE_UMASK = 0o022
"""Files 0644 and folders 0755 unless the app says otherwise: what the app must not rely on."""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)
