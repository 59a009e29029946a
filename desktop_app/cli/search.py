"""`mcp-desk search QUERY`: servers in the MCP Registry whose name matches, one line each;
`mcp-desk search --domain example.com`: the servers a domain describes in its Server Cards.

Prints name, latest version and the one-line description (a domain's servers also their addresses).
When the registry cannot be reached, the list cached by an earlier identical search is printed
instead, with a warning saying so. Publisher text is printed with its control characters written
out (`core/terminal_text`). Errors are one line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Final

from desktop_app.core.app_settings import default_settings_path, load_settings
from desktop_app.core.discovery.address import DiscoveryError
from desktop_app.core.discovery.cache import DocumentCache
from desktop_app.core.discovery.discover import DomainListing, discover
from desktop_app.core.discovery.endpoints import endpoints
from desktop_app.core.log_routing import install_logging
from desktop_app.core.paths import cache_dir
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.registry.cache import RegistryCache
from desktop_app.core.registry.client import RegistryClient, RegistryError, ServerPage, browse
from desktop_app.core.registry.model import ServerEntry
from desktop_app.core.terminal_text import printable

PROG: Final = "mcp-desk search"
EXIT_OK: Final = 0
EXIT_ERROR: Final = 2
DEFAULT_LIMIT: Final = 30


def registry_url(option: str | None, policy: PolicyInForce) -> str:
    """`--registry`, else the one chosen in the app's settings (the official registry by default); only
    the one a managed policy pins (another is refused with `RegistryError` naming the rule)."""
    if option is not None and (refusal := policy.registry_refusal(RegistryClient(option).base_url)) is not None:
        raise RegistryError(str(refusal))
    return policy.registry_url(option or load_settings(default_settings_path()).settings.registry_url)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Search the MCP Registry, or a domain, for servers.")
    parser.add_argument("query", metavar="QUERY", nargs="?", help="part of the server's name")
    parser.add_argument("--domain", metavar="DOMAIN", help="list the servers a domain (or URL) describes instead")
    parser.add_argument("--registry", metavar="URL", help="the registry to search (default: the one in Settings)")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"default {DEFAULT_LIMIT}")
    return parser


def search_command(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_ERROR if exc.code not in (0, None) else EXIT_OK
    if (args.query is None) == (args.domain is None):
        print(f"{PROG}: give either QUERY or --domain DOMAIN", file=sys.stderr)
        return EXIT_ERROR
    install_logging(logging.WARNING)  # libraries' warnings on stderr, secrets redacted
    try:
        if args.domain is not None:
            listing = asyncio.run(discover(args.domain, cache=DocumentCache(cache_dir() / "discovery")))
            print(format_listing(listing), end="")
            return EXIT_OK
        url = registry_url(args.registry, policy_in_force())
        entries, notes = asyncio.run(_search(url, args.query, max(1, args.limit)))
    except (RegistryError, DiscoveryError) as exc:
        print(printable(f"{PROG}: {exc}"), file=sys.stderr)
        return EXIT_ERROR
    for note in notes:
        print(printable(f"{PROG}: warning: {note}"), file=sys.stderr)
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
    return printable("\n".join(lines)) + "\n"


def format_listing(listing: DomainListing) -> str:
    """Each of a domain's servers: name, version and title or description, then its addresses and
    what to know about them; servers whose card cannot be used say why on stderr."""
    lines = []
    for found in listing.servers:
        card = found.card
        if card is None:
            print(printable(f"{PROG}: warning: left out {found.display_name}: {found.problem}"), file=sys.stderr)
            continue
        about = " — ".join(part for part in (card.title, " ".join(card.description.split())) if part)
        lines.append(f"{card.name}  {card.version}  {about}")
        lines += [f"  warning: {warning}" for warning in found.warnings]
        for endpoint in endpoints(card, listing.domain):
            lines.append(f"  {endpoint.label}")
            lines += [f"    refused: {endpoint.problem}"] if endpoint.problem else []
            lines += [f"    warning: {warning}" for warning in endpoint.warnings]
    for line in listing.skipped:
        print(printable(f"{PROG}: warning: left out {line}"), file=sys.stderr)
    if not lines:
        print(f"{PROG}: {listing.domain.host} lists no server MCP Desk can read.", file=sys.stderr)
        return ""
    return printable("\n".join(lines)) + "\n"


if __name__ == "__main__":
    sys.exit(search_command(sys.argv[1:]))
