"""`mcp-desk search QUERY`: servers in the MCP Registry whose name matches, one line each.

Prints name, latest version and the one-line description. When the registry cannot be reached,
the list cached by an earlier identical search is printed instead, with a warning saying so.
Errors are one line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Final

from desktop_app.core.app_settings import default_settings_path, load_settings
from desktop_app.core.log_routing import install_logging
from desktop_app.core.paths import cache_dir
from desktop_app.core.registry.cache import RegistryCache
from desktop_app.core.registry.client import RegistryClient, RegistryError, ServerPage, browse
from desktop_app.core.registry.model import ServerEntry

PROG: Final = "mcp-desk search"
EXIT_OK: Final = 0
EXIT_ERROR: Final = 2
DEFAULT_LIMIT: Final = 30


def registry_url(option: str | None) -> str:
    """`--registry`, else the one chosen in the app's settings (the official registry by default)."""
    return option or load_settings(default_settings_path()).settings.registry_url


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Search the MCP Registry for servers.")
    parser.add_argument("query", metavar="QUERY", help="part of the server's name")
    parser.add_argument("--registry", metavar="URL", help="the registry to search (default: the one in Settings)")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"default {DEFAULT_LIMIT}")
    return parser


def search_command(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_ERROR if exc.code not in (0, None) else EXIT_OK
    install_logging(logging.WARNING)  # libraries' warnings on stderr, secrets redacted
    try:
        entries, notes = asyncio.run(_search(registry_url(args.registry), args.query, max(1, args.limit)))
    except RegistryError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    for note in notes:
        print(f"{PROG}: warning: {note}", file=sys.stderr)
    if not entries:
        print(f"No servers match {args.query!r}.", file=sys.stderr)
    print(format_entries(entries), end="")
    return EXIT_OK


async def _search(url: str, query: str, limit: int) -> tuple[list[ServerEntry], list[str]]:
    client = RegistryClient(url)
    cache = RegistryCache(cache_dir() / "registry")
    entries: list[ServerEntry] = []
    notes: list[str] = []
    cursor: str | None = None
    while True:
        page: ServerPage = await browse(client, cache, search=query, cursor=cursor)
        entries.extend(page.entries)
        notes.extend(f"left out {line}" for line in page.skipped)
        if page.cached_at is not None:
            notes.append(f"{page.offline_reason}; showing the list cached on {page.cached_at:%Y-%m-%d %H:%M} UTC")
        cursor = page.next_cursor
        if cursor is None or len(entries) >= limit:
            return entries[:limit], notes


def format_entries(entries: list[ServerEntry]) -> str:
    """Aligned `name  version  description` lines; a deprecated server says so."""
    if not entries:
        return ""
    names = [e.server.name for e in entries]
    versions = [e.server.version for e in entries]
    name_width, version_width = max(map(len, names)), max(map(len, versions))
    lines = []
    for entry, name, version in zip(entries, names, versions, strict=True):
        description = " ".join(entry.server.description.split())
        if entry.official.status != "active":
            description += f" ({entry.official.status})"
        lines.append(f"{name:<{name_width}}  {version:<{version_width}}  {description}".rstrip())
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(search_command(sys.argv[1:]))
