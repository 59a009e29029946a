"""One configured MCP server, as the user wrote it (before `${...}` expansion)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

DEFAULT_TIMEOUT_S: Final = 30.0
PROTOCOL_MODES: Final = ("auto", "legacy", "2026-07-28")


class TransportKind(StrEnum):
    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


@dataclass(frozen=True)
class ServerConfig:
    """A server entry in the Claude Desktop `mcpServers` shape, plus MCP Desk's own options.

    Values may still hold `${VAR}` and `${secret:NAME}` placeholders; they are resolved at
    connect time so secrets never sit in this object longer than a connection attempt needs.
    """

    name: str
    transport: TransportKind
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    protocol: str = "auto"
    timeout: float = DEFAULT_TIMEOUT_S
    origin: dict[str, str] = field(default_factory=dict)
    """Where an installed server came from (registry, name, version, package; a bundle's folder)."""

    @property
    def is_stdio(self) -> bool:
        return self.transport is TransportKind.STDIO
