"""A request's ledger: every part the model was sent, with its tokens, and what was cut and why.

Plain frozen values with a JSON form, so the chat can build one off the event loop, a trace can
carry it, and the window can show it after a restart. The parts of each section add up to the
section's count exactly: joins and framing are a part of their own, never spread over the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from desktop_app.core.ledger.claims import SaidBy, said_from

PREVIEW_CHARS: Final = 300
AGREEMENT: Final = 0.02
"""How close the app's count and the provider's figure should be on requests over 1,000 tokens."""


class PartKind(StrEnum):
    GUIDANCE = "guidance"
    """MCP Desk's own words in the system prompt."""
    INSTRUCTIONS = "instructions"
    """A server's instructions, in the system prompt (trusted servers only)."""
    CATALOG = "catalog"
    """A server's catalog lines: what can be read and invoked."""
    TOOLS = "tools"
    """Tool schemas: one server's, or the app's own (read_resource, …)."""
    MESSAGE = "message"
    """The user's words, the model's earlier answers and calls."""
    RESOURCE = "resource"
    """A resource read by the model or attached by the user."""
    TOOL_RESULT = "tool_result"
    PROMPT = "prompt"
    """Messages a server prompt added."""
    IMAGE = "image"
    FRAMING = "framing"
    """Joins, role markers and the provider's wrapping of messages and tools."""


class Section(StrEnum):
    SYSTEM = "system"
    TOOLS = "tools"
    MESSAGES = "messages"


SECTION_TITLES: Final = {Section.SYSTEM: "System prompt", Section.TOOLS: "Tool schemas", Section.MESSAGES: "Messages"}


@dataclass(frozen=True)
class Part:
    """One piece of a request; `preview` is the start of its text (never bytes)."""

    section: Section
    kind: PartKind
    label: str
    tokens: int
    preview: str = ""
    server: str | None = None
    message: int | None = None
    """Its position in the conversation's messages, for parts of the Messages section."""


@dataclass(frozen=True)
class Cut:
    """Something not sent whole, and why (the read cap, a binary sent as a descriptor, a bounded catalog)."""

    kind: str
    text: str


@dataclass(frozen=True)
class Ledger:
    """What one model request carried and what it cost, by the app's count and by the provider's."""

    model: str
    parts: tuple[Part, ...]
    cuts: tuple[Cut, ...] = ()
    dialect: str = "openai"
    """Whose accounting the count follows (`accounting.Dialect`)."""
    reported_prompt_tokens: int | None = None
    """The provider's prompt tokens for this request; None when it reported none."""
    reported_completion_tokens: int | None = None
    notes: tuple[str, ...] = field(default=())
    said: tuple[SaidBy, ...] = ()
    """What each server whose content the request carried said it is: its own claim, never checked."""

    @property
    def counted(self) -> int:
        """The app's count of the request: every part, framing included."""
        return sum(part.tokens for part in self.parts)

    def section_tokens(self, section: Section) -> int:
        return sum(part.tokens for part in self.parts if part.section is section)

    def in_section(self, section: Section) -> list[Part]:
        return [part for part in self.parts if part.section is section]

    @property
    def difference(self) -> float | None:
        """(reported − counted) / reported, or None when the provider reported nothing."""
        reported = self.reported_prompt_tokens
        if not reported:
            return None
        return (reported - self.counted) / reported

    def agrees(self) -> bool | None:
        """Whether the count is within `AGREEMENT` of the provider's; None when that cannot be said
        (no figure from the provider, or a request too small for a share to mean anything)."""
        difference = self.difference
        if difference is None or (self.reported_prompt_tokens or 0) <= 1000:
            return None
        return abs(difference) <= AGREEMENT

    def with_usage(self, prompt_tokens: int | None, completion_tokens: int | None) -> Ledger:
        return replace(self, reported_prompt_tokens=prompt_tokens, reported_completion_tokens=completion_tokens)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "dialect": self.dialect,
            "counted": self.counted,
            "reported": {
                "prompt_tokens": self.reported_prompt_tokens,
                "completion_tokens": self.reported_completion_tokens,
            },
            "parts": [
                {
                    "section": str(p.section),
                    "kind": str(p.kind),
                    "label": p.label,
                    "tokens": p.tokens,
                    "preview": p.preview,
                    "server": p.server,
                    "message": p.message,
                }
                for p in self.parts
            ],
            "cuts": [{"kind": c.kind, "text": c.text} for c in self.cuts],
            "notes": list(self.notes),
            "said": [said.to_dict() for said in self.said],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ledger:
        """A ledger read back from a trace; raises `ValueError` for one this version cannot read.

        The servers' claims are read apart: one that cannot be read is left out, the ledger still shows."""
        try:
            parts = tuple(
                Part(
                    Section(p["section"]),
                    PartKind(p["kind"]),
                    str(p["label"]),
                    int(p["tokens"]),
                    str(p.get("preview") or ""),
                    p.get("server"),
                    p.get("message"),
                )
                for p in data.get("parts", [])
            )
            reported = data.get("reported") or {}
            return cls(
                model=str(data.get("model", "")),
                parts=parts,
                cuts=tuple(Cut(str(c["kind"]), str(c["text"])) for c in data.get("cuts", [])),
                dialect=str(data.get("dialect", "openai")),
                reported_prompt_tokens=_optional_int(reported.get("prompt_tokens")),
                reported_completion_tokens=_optional_int(reported.get("completion_tokens")),
                notes=tuple(str(n) for n in data.get("notes", [])),
                said=said_from(data.get("said")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"unreadable ledger: {exc}") from None


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def preview(text: str) -> str:
    """The start of `text` on one line, for a part's label in a list."""
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"
