"""Build the ledger of one model request: its parts counted, its cuts named, the provider's usage beside.

The turn takes a snapshot of what it sent (catalogs and messages are never changed in place, so
holding them is enough) and the ledger is counted afterwards in a worker thread, while the loop
goes on: the first token never waits for a count. The snapshot also holds what each server last said
it is (its serverInfo claim); the ledger keeps the claims of the servers whose content the request
carried, as their own words under the names the user gave them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.context import SystemPrompt
from desktop_app.core.chat.message_parts import MessageParts, PartsMemo
from desktop_app.core.chat.prompt_parts import system_parts
from desktop_app.core.chat.tokens import encoding_name, uses_library_tokenizer
from desktop_app.core.ledger.accounting import Accounting, dialect_for, sent_tools, tool_name
from desktop_app.core.ledger.claims import SaidBy, ServerClaim
from desktop_app.core.ledger.parts import Cut, Ledger, Part, PartKind, Section, preview
from desktop_app.core.model.chat_model import ProviderUsage

SERVER_CONTENT: Final = frozenset({PartKind.TOOL_RESULT, PartKind.RESOURCE, PartKind.PROMPT})
"""The parts that are a server's own content: what it returned, what was read from it, what its prompts added."""


class Claiming(Protocol):
    """A connection, as far as its claim goes."""

    @property
    def claim(self) -> ServerClaim | None: ...


def claims_now(connections: Mapping[str, Claiming]) -> dict[str, ServerClaim]:
    """What each server last said it is, by its configured name (servers that said nothing are left out)."""
    return {name: claim for name, connection in connections.items() if (claim := connection.claim) is not None}


@dataclass(frozen=True)
class RequestSnapshot:
    """What one request carried, as the turn built it."""

    model: str
    system: SystemPrompt
    catalog: Catalog
    trusted: frozenset[str]
    messages: tuple[dict[str, Any], ...]
    """The conversation's messages as sent after the system prompt (position 0 is the first)."""
    tools: tuple[dict[str, Any], ...]
    tool_search: bool
    """The catalog had more tools than the budget: some were left out and `search_tools` offered."""
    max_tools: int
    read_cap: int
    events: tuple[tuple[int, dict[str, Any]], ...]
    """The conversation's kept events: which resources were read or attached, which results had bytes."""
    claims: Mapping[str, ServerClaim] = field(default_factory=dict)
    """What each server said it is when the request was sent (`claims_now`), by configured name."""


def build_ledger(
    snapshot: RequestSnapshot,
    count: Callable[[str], int],
    usage: ProviderUsage | None,
    payload: dict[str, Any] | None = None,
    memo: PartsMemo | None = None,
) -> Ledger:
    """The request's ledger; every section's parts add up to the section's count.

    `payload` is the body as sent: its tools are counted as the provider got them (translated). `memo`
    holds the conversation's turns as the last ledger counted them: only what the request adds is counted.
    """
    dialect = dialect_for(snapshot.model)
    accounting = Accounting(count, dialect)
    system_message = {"role": "system", "content": snapshot.system.text}
    parts, cuts = system_parts(
        snapshot.system, snapshot.catalog, snapshot.trusted, count, accounting.framing(system_message)
    )
    tool_parts, tool_cuts = _tool_parts(snapshot, accounting, sent_tools(payload) or list(snapshot.tools))
    message_parts, message_cuts = MessageParts(
        snapshot.messages, snapshot.events, snapshot.catalog, accounting, snapshot.read_cap, memo
    ).build()
    if uses_library_tokenizer(snapshot.model):
        tokenizer = "the model's own tokenizer (as litellm counts it)"
    else:
        tokenizer = f"tiktoken {encoding_name(snapshot.model)}"
    notes = [f"Counted with {tokenizer}, framing as {'Anthropic' if dialect == 'anthropic' else 'OpenAI'} bills it."]
    if usage is None:
        notes.append("The provider reported no usage for this request.")
    return Ledger(
        model=snapshot.model,
        parts=tuple(parts + tool_parts + message_parts),
        cuts=tuple(cuts + tool_cuts + message_cuts),
        dialect=str(dialect),
        reported_prompt_tokens=None if usage is None else usage.prompt_tokens,
        reported_completion_tokens=None if usage is None else usage.completion_tokens,
        notes=tuple(notes),
        said=said_by(message_parts, snapshot.claims),
    )


def said_by(parts: list[Part], claims: Mapping[str, ServerClaim]) -> tuple[SaidBy, ...]:
    """The claim of each server whose content is among `parts`, by configured name, in name order.

    The name comes from the app's records (the catalog, the read's event), never from the claim: a
    server claiming to be another is listed under its own name, saying what it says.
    """
    servers = sorted({part.server for part in parts if part.kind in SERVER_CONTENT and part.server})
    return tuple(SaidBy(server, claims[server]) for server in servers if server in claims)


def _tool_parts(
    snapshot: RequestSnapshot, accounting: Accounting, tools: list[dict[str, Any]]
) -> tuple[list[Part], list[Cut]]:
    """Tool schemas per server (the app's own tools apart), the list's framing, and what the budget left out."""
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for spec in tools:
        target = snapshot.catalog.tool(tool_name(spec))
        groups.setdefault(None if target is None else target.server, []).append(spec)
    parts: list[Part] = []
    for server in sorted(groups, key=lambda name: (name is not None, name or "")):
        specs = groups[server]
        names = ", ".join(tool_name(spec) for spec in specs)
        label = "MCP Desk's own tools" if server is None else f'Tools of "{server}"'
        label += f" ({len(specs)})"
        tokens = sum(accounting.tool(spec) for spec in specs)
        parts.append(Part(Section.TOOLS, PartKind.TOOLS, label, tokens, preview(names), server))
    if tools:
        framing = accounting.tools_framing(len(tools))
        label = "The tool-use system prompt" if accounting.dialect == "anthropic" else "The tool list's framing"
        parts.append(Part(Section.TOOLS, PartKind.FRAMING, label, framing))
    cuts: list[Cut] = []
    if snapshot.tool_search:
        offered = sum(len(specs) for server, specs in groups.items() if server is not None)
        total = sum(1 for _ in snapshot.catalog.tools())
        cuts.append(
            Cut(
                "tools",
                f"{offered:,} of {total:,} server tools are offered (the limit is {snapshot.max_tools:,}); "
                "the model finds the others with search_tools.",
            )
        )
    return parts, cuts
