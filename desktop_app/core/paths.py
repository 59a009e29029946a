"""Where MCP Desk keeps its files, per the platform's conventions."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "mcp-desk"
CONFIG_FILENAME = "servers.json"


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
