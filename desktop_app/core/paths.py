"""Where MCP Desk keeps its files, per the platform's conventions."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "mcp-desk"
CONFIG_FILENAME = "servers.json"
SETTINGS_FILENAME = "settings.json"
HISTORY_FILENAME = "conversations.sqlite3"


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
