"""What MCP Desk believes about a tool and its server, and which content makes a chat untrusted.

Tool annotations (`readOnlyHint`, `destructiveHint`, ...) are the server's own claims. The
specification tells hosts to treat them as untrusted unless the server is trusted, so a claim
that would make MCP Desk *less* careful (read-only) counts only for servers the user trusts,
while a claim that makes it *more* careful (destructive) is always believed.

Content from outside the user's control can carry instructions aimed at the model (prompt
injection). A resource, prompt or tool result from an untrusted server, or from a tool that
says it reaches an open world, therefore marks the conversation as tainted; the approval
policy then stops letting rules run tools that are not read-only. Catalog metadata (names,
descriptions) does not taint: it is in every system prompt and would taint every chat. A
server's free-form `instructions` are the exception: an untrusted server's stay out of the
prompt, and the model reading them taints (`core/chat/server_instructions.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mcp_types import Tool

MAX_TAINT_REASONS: Final = 20
"""A conversation remembers this many reasons for being tainted (the first one is the one shown)."""


@dataclass(frozen=True)
class ToolHints:
    """A tool's annotations as the server states them; None where the server says nothing."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    @classmethod
    def of(cls, tool: Tool) -> ToolHints:
        notes = tool.annotations
        if notes is None:
            return cls()
        return cls(notes.read_only_hint, notes.destructive_hint, notes.idempotent_hint, notes.open_world_hint)

    @property
    def claims_destructive(self) -> bool:
        """The server says the tool may destroy something (only meaningful when not read-only)."""
        return self.destructive is True and self.read_only is not True

    @property
    def may_reach_open_world(self) -> bool:
        """Per the specification an unannotated tool may reach an open world (the default is true)."""
        return self.open_world is not False

    def claims(self) -> list[str]:
        """The explicit claims in words, for badges: e.g. ["read-only", "idempotent"]."""
        words = []
        if self.read_only is True:
            words.append("read-only")
        if self.claims_destructive:
            words.append("destructive")
        elif self.read_only is not True and self.destructive is False:
            words.append("additive")
        if self.idempotent is True:
            words.append("idempotent")
        if self.open_world is True:
            words.append("open world")
        elif self.open_world is False:
            words.append("closed world")
        return words


NO_HINTS: Final = ToolHints()


@dataclass(frozen=True)
class ServerTrust:
    """The user's stance on one server (from `servers.json`); untrusted unless they said otherwise."""

    trusted: bool = False
    auto_approve_read_only: bool = False
    """Run the tools this server declares read-only without asking (only while it is trusted)."""


UNTRUSTED: Final = ServerTrust()


def is_read_only(hints: ToolHints, trust: ServerTrust) -> bool:
    """Read-only as far as the policy is concerned: declared so by a server the user trusts."""
    return trust.trusted and hints.read_only is True


def resource_taint(server: str, uri: str, trust: ServerTrust) -> str | None:
    """Why reading `uri` taints the conversation, or None when its server is trusted."""
    return None if trust.trusted else f"read {uri} from {server}, a server you have not marked as trusted"


def prompt_taint(server: str, prompt: str, trust: ServerTrust) -> str | None:
    """Why a server prompt's messages taint the conversation, or None when its server is trusted."""
    return None if trust.trusted else f"used prompt '{prompt}' from {server}, a server you have not marked as trusted"


def instructions_taint(server: str, trust: ServerTrust) -> str | None:
    """Why the model reading `server`'s instructions taints the conversation, or None when it is trusted."""
    return None if trust.trusted else f"read the instructions of {server}, a server you have not marked as trusted"


def app_taint(server: str, app: str, trust: ServerTrust) -> str | None:
    """Why a message or model context from an MCP App view taints the conversation (its server's words)."""
    return None if trust.trusted else f"text from the app {app} of {server}, a server you have not marked as trusted"


def tool_result_taint(server: str, tool: str, hints: ToolHints, trust: ServerTrust) -> str | None:
    """Why a tool's result taints the conversation: an untrusted server, or a tool that may reach an open world."""
    if not trust.trusted:
        return f"result of {tool} on {server}, a server you have not marked as trusted"
    if hints.may_reach_open_world:
        return f"result of {tool} on {server}, a tool that may bring in content from the open world"
    return None
