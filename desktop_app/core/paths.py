"""Where MCP Desk keeps its files, per the platform's conventions."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "mcp-desk"


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """Files that can be fetched again (the registry's last lists); safe to delete."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
