"""What an import of another client's servers would do, as values the review and the command line show.

Kept apart from the readers (`config_import`) so the window's review and `mcp-desk import` depend on
the report's shape only, not on how each client's file is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from desktop_app.core.launch_env import refusal
from desktop_app.core.server_config import ServerConfig

APP_SECRET_PREFIXES: Final = ("LLM_API_KEY_", "oauth.", "oidc.")
"""Names under which the app keeps its own secrets in the store: the model provider's key
(`model/providers.key_secret_name`), sign-in tokens (`auth/credentials.SECRET_PREFIX`) and the
organisation's ID token (`auth/idp.ID_TOKEN_PREFIX`). An imported placeholder naming one would hand
that secret to the imported server, so such a server is refused."""

ClientKind = Literal["claude", "claude-code", "copilot", "cursor", "vscode"]
CLIENT_NAMES: Final[Mapping[ClientKind, str]] = {
    "claude": "Claude Desktop",
    "claude-code": "Claude Code",
    "copilot": "GitHub Copilot",
    "cursor": "Cursor",
    "vscode": "VS Code",
}


@dataclass(frozen=True)
class ImportSource:
    """A place where another client keeps its MCP servers."""

    client: str
    kind: ClientKind
    path: Path
    exists: bool


@dataclass(frozen=True)
class SecretNeeded:
    """A secret an imported server refers to; the user must store it before connecting."""

    name: str
    description: str = ""


@dataclass(frozen=True)
class ImportedServer:
    """One new server of the file, as it would be saved, and what the import took from it or holds against it."""

    config: ServerConfig
    dropped: tuple[str, ...] = ()
    """The trust-granting keys (`TRUST_KEYS`) the file set, which are not imported."""
    launch_names: tuple[str, ...] = ()
    """Environment names that change which program runs or what it loads: the server is refused."""
    app_secrets: tuple[str, ...] = ()
    """Placeholders naming the app's own secrets (`APP_SECRET_PREFIXES`): the server is refused."""

    @property
    def refusal(self) -> str | None:
        """Why this server is not imported; None when it is."""
        if self.app_secrets:
            return (
                f"the imported entry asks for {', '.join(self.app_secrets)}, where MCP Desk keeps your model key"
                " or sign-in tokens; imports may not"
            )
        if not self.launch_names:
            return None
        reason = refusal(list(self.launch_names), "imported entry", "imports")
        return f"{reason}. Add the server in the server editor if you mean it"

    @property
    def program_note(self) -> str:
        """Where the command was found, when that is not an absolute path ("" when it is)."""
        command = self.config.command or ""
        if not self.config.is_stdio or os.path.isabs(command):
            return ""
        if "${" in command:
            return "the command holds a variable, resolved when the server starts"
        if "/" in command or "\\" in command:
            return "a relative path: it runs from the server's working folder"
        return "not found on this computer's PATH"

    @property
    def dropped_line(self) -> str:
        """The user's words for what was dropped ("" when nothing was)."""
        if not self.dropped:
            return ""
        return f"dropped {', '.join(self.dropped)}: set them in the server editor if you mean it"


@dataclass(frozen=True)
class ImportReport:
    """What an import would do, shown before anything is saved; `servers` is the merged result to save."""

    source: Path
    kind: ClientKind
    servers: dict[str, ServerConfig]
    added: list[str]
    skipped: list[str]
    unchanged: list[str]
    secrets_needed: list[SecretNeeded]
    warnings: list[str]
    new: dict[str, ImportedServer] = field(default_factory=dict)
    """Every server the file adds or was refused, by name, in the file's order."""

    @property
    def refused(self) -> list[str]:
        """New servers that are not imported (`ImportedServer.refusal` says why)."""
        return [name for name, server in self.new.items() if server.refusal is not None]

    def notes(self) -> list[str]:
        """The review's lines beside its servers: names already used or present, and secrets still to set."""
        lines = []
        if self.skipped:
            lines.append(f"Skipped, the name is already used: {', '.join(self.skipped)}")
        if self.unchanged:
            lines.append(f"Already present: {', '.join(self.unchanged)}")
        if self.secrets_needed:
            needed = (f"{s.name} ({s.description})" if s.description else s.name for s in self.secrets_needed)
            lines.append(f"Secrets to set before connecting: {', '.join(needed)}")
        return lines

    @property
    def summary(self) -> str:
        """One paragraph for the user."""
        client = CLIENT_NAMES[self.kind]
        if not (self.added or self.skipped or self.unchanged or self.new):
            return f"No servers found in {client}'s {self.source}."
        parts = [f"From {client}: added {len(self.added)}" + _names(self.added)]
        if self.refused:
            parts.append(f"refused {len(self.refused)}" + _names(self.refused))
        if self.skipped:
            parts.append(f"skipped {len(self.skipped)} whose name is already used" + _names(self.skipped))
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} already present" + _names(self.unchanged))
        text = "; ".join(parts) + "."
        if self.secrets_needed:
            needed = ", ".join(f"{s.name} ({s.description})" if s.description else s.name for s in self.secrets_needed)
            text += f" Set these secrets before connecting: {needed}."
        judged = [f"{name}: {line}." for name, s in self.new.items() for line in (s.refusal, s.dropped_line) if line]
        return " ".join([text, *judged, *self.warnings])


def _names(names: list[str]) -> str:
    return f" ({', '.join(names)})" if names else ""
