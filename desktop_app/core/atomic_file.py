"""The app's own files: private (0600 in 0700 folders, whatever the umask) and written so that a
crash leaves the old file or the new one, never half of one.

Traces, transcripts, exports, the history database and the settings hold whole conversations or
the names of secrets: every writer creates them through `open_private`, `private_file` or
`atomic_write`, and the app's own folders through `paths.private_dir`, so no other user reads them.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Final

from desktop_app.core.paths import private_dir

PRIVATE_FILE: Final = 0o600


def private_file(path: Path) -> Path:
    """`path` existing as a file only its owner can read (created empty, or tightened to 0600)."""
    os.close(_open_fd(path, os.O_WRONLY | os.O_CREAT))
    return path


def open_private(path: Path, mode: str = "w") -> IO[str]:
    """`path` opened for text (`w` or `a`), created 0600 or tightened to it; a missing folder is made 0700
    (an existing one is left as it is: it may be the user's)."""
    if not path.parent.exists():
        private_dir(path.parent)
    flags = {"w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND}[mode]
    return os.fdopen(_open_fd(path, flags), mode, encoding="utf-8", newline="\n")


def write_private(path: Path, text: str) -> None:
    """`path` replaced by `text` in place, 0600 (a user's chosen file: an export, a transcript)."""
    with open_private(path, "w") as out:
        out.write(text)


def _open_fd(path: Path, flags: int) -> int:
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE)
    if os.name == "posix":
        try:
            if os.fstat(fd).st_mode & 0o777 != PRIVATE_FILE:
                os.fchmod(fd, PRIVATE_FILE)  # an older file, or one created wider by someone else
        except OSError:
            pass  # not ours to change (another owner): it is still written
    return fd


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` (0600) so a crash leaves either the old or the new file, never half of one;
    a missing folder is made 0700."""
    if not path.parent.exists():
        private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, PRIVATE_FILE)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX only; Windows cannot open directories)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
