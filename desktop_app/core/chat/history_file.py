"""The history's file before sqlite opens it: private, and an SQLite database or nothing.

sqlite creates `-wal` and `-shm` with the database file's mode, so the file is made 0600 (in a
0700 folder) before the first connection, and older ones are tightened. A file that is not a
database is refused before sqlite sees it: opening it, sqlite would delete the `-wal` and `-shm`
beside it, which belong with the damaged file when it is set aside.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from desktop_app.core.atomic_file import private_file
from desktop_app.core.paths import private_dir

BUSY_TIMEOUT: Final = 2.0
"""Seconds to wait for another program holding the database (a backup, an sqlite shell): the event loop waits."""
SQLITE_HEADER: Final = b"SQLite format 3\x00"
COMPANIONS: Final = ("-wal", "-shm")
"""The files sqlite keeps beside the database in WAL mode."""


def prepare_history_file(path: Path) -> str:
    """Make `path` private (created empty when missing) and check it is a database; returns the URI a
    read-only connection opens it with. Raises `sqlite3.DatabaseError` for a file that is not a
    database, `OSError` when it cannot be made (a folder in its place)."""
    private_dir(path.parent)
    _check_header(path)
    private_file(path)
    for suffix in COMPANIONS:
        if (companion := Path(f"{path}{suffix}")).exists():
            private_file(companion)
    return f"{path.resolve().as_uri()}?mode=ro"


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    if head and head != SQLITE_HEADER:
        raise sqlite3.DatabaseError("file is not a database")
