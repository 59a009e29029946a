"""Where MCP Desk keeps its files, per the platform's conventions, in folders only their owner enters."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final

import platformdirs

APP_NAME = "mcp-desk"
CONFIG_FILENAME = "servers.json"
SETTINGS_FILENAME = "settings.json"
HISTORY_FILENAME = "conversations.sqlite3"
PRIVATE_DIR: Final = 0o700


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def default_config_path() -> Path:
    """Where `servers.json` lives for this user on this OS."""
    return config_dir() / CONFIG_FILENAME


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """Files that can be fetched again (the registry's last lists); safe to delete."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def history_path(config_path: Path) -> Path:
    """Where the chats held with the servers of `config_path` are kept.

    The user's own configuration keeps the data folder's history; another one (`--config FILE`)
    has its own, named after its path, so two windows on two configurations never share chats.
    """
    resolved = config_path.expanduser().resolve()
    if resolved == default_config_path().expanduser().resolve():
        return data_dir() / HISTORY_FILENAME
    import hashlib  # here: these paths are read before the window's first paint, this is not

    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    return data_dir() / "histories" / digest / HISTORY_FILENAME


def private_dir(path: Path) -> Path:
    """`path` as a folder only its owner can enter: created 0700 (with any missing parents), or tightened
    to 0700 when it already exists wider (another tool may have made it 0755). Only for the app's own
    folders: never a folder the user chose."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR)
    for folder in {path, *missing}:  # mkdir's mode passes through the umask: say it again
        _tighten(folder)
    return path


def _tighten(folder: Path) -> None:
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):  # not ours to change (another owner): used as it is
        if folder.stat().st_mode & 0o777 != PRIVATE_DIR:
            folder.chmod(PRIVATE_DIR)
