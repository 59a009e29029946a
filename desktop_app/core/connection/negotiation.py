"""Which protocol era a session speaks, and what each era needs once the handshake is done.

2026-07-28 sessions learn a pinned server's capabilities with `server/discover` and get logs only
on requests that ask for them; 2025-era sessions turn logging on with `logging/setLevel`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Final

from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import REQUEST_TIMEOUT, DiscoverResult, Implementation, ServerCapabilities
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app import __version__
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import describe_error

CLIENT_INFO: Final = Implementation(name="mcp-desk", title="MCP Desk", version=__version__)

Note = Callable[[str, str], None]
"""Adds a line (level, text) to the server's log."""


def is_modern(client: Client) -> bool:
    """The session speaks the 2026-07-28 protocol (stateless requests, `subscriptions/listen`)."""
    return client.protocol_version in MODERN_PROTOCOL_VERSIONS


async def discover_pinned(client: Client, config: ServerConfig, note: Note) -> None:
    """A pinned 2026 version skips the probe, and the SDK then assumes a server with no capabilities
    (so nothing would be listed): ask the server what it offers with `server/discover`.

    The SDK gives each `server/discover` 10 s; a server still starting (a package being fetched,
    a busy machine) answers a later try, so tries repeat within the server's own timeout."""
    if config.protocol not in MODERN_PROTOCOL_VERSIONS or client.server_capabilities != ServerCapabilities():
        return
    deadline = time.monotonic() + config.timeout
    while True:
        try:
            raw = await client.session.send_discover(client.protocol_version)
            client.session.adopt(DiscoverResult.model_validate(raw))
            return
        except MCPError as exc:
            if exc.code != REQUEST_TIMEOUT:
                note("warning", f"server/discover failed; listing nothing: {describe_error(exc)}")
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no answer to server/discover within {config.timeout:g} s") from None
        except (ValueError, RuntimeError) as exc:
            note("warning", f"server/discover failed; listing nothing: {describe_error(exc)}")
            return


async def enable_legacy_logging(client: Client, level: str, note: Note) -> None:
    """Ask a 2025-era server that logs for messages at `level` and above."""
    if is_modern(client) or client.server_capabilities.logging is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        try:
            await client.set_logging_level(level)  # type: ignore[arg-type]
        except MCPError as exc:
            note("info", f"server refused logging/setLevel: {exc.message}")
