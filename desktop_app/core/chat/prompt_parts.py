"""The system prompt taken apart for the ledger: the app's guidance, each server's instructions, each
server's catalog lines, and what the prompt left out or cut.

The prompt is cut where it was joined (`context.py` builds it: guidance, `# Catalog`, then one
`## Server "name"` block per server in name order, each with its instructions first), walking
forward so a heading a server wrote inside its own text cannot take another server's place.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.context import SystemPrompt
from desktop_app.core.chat.server_instructions import (
    MAX_INSTRUCTIONS_CHARS,
    InstructionsUse,
    instructions_uri,
    instructions_use,
    prompt_lines,
)
from desktop_app.core.ledger.parts import Cut, Part, PartKind, Section, preview

CATALOG_HEADING = "\n\n# Catalog\n\n"


def system_parts(
    system: SystemPrompt,
    catalog: Catalog,
    trusted: frozenset[str],
    count: Callable[[str], int],
    framing: int,
) -> tuple[list[Part], list[Cut]]:
    """The system section's parts (adding up to the prompt's count plus `framing`) and its cuts."""
    text = system.text
    parts: list[Part] = []
    cuts: list[Cut] = []
    heading = text.find(CATALOG_HEADING)
    body_start = len(text) if heading < 0 else heading + len(CATALOG_HEADING)
    guidance = text[:body_start]
    parts.append(Part(Section.SYSTEM, PartKind.GUIDANCE, "MCP Desk's guidance", count(guidance), preview(guidance)))
    cursor = body_start
    servers = sorted(catalog.servers)
    for index, server in enumerate(servers):
        snapshot = catalog.servers[server]
        head = f'## Server "{server}"'
        start = text.find(head, cursor)
        if start < 0:
            continue
        instructions = "\n".join(prompt_lines(server, snapshot, server in trusted))
        after = start + len(head) + 1
        use = instructions_use(snapshot, server in trusted)
        sent = use is InstructionsUse.SENT and text.startswith(instructions, after)
        listing_from = after + len(instructions) if sent else after
        following = f'## Server "{servers[index + 1]}"' if index + 1 < len(servers) else None
        end = text.find(following, listing_from) if following is not None else -1
        end = len(text) if end < 0 else end
        cursor = end
        if sent:
            parts.append(
                Part(
                    Section.SYSTEM,
                    PartKind.INSTRUCTIONS,
                    f'Instructions of "{server}"',
                    count(instructions),
                    preview(snapshot.instructions or ""),
                    server,
                )
            )
            if len(" ".join((snapshot.instructions or "").split())) > MAX_INSTRUCTIONS_CHARS:
                cuts.append(
                    Cut(
                        "instructions",
                        f'The instructions of "{server}" are cut to {MAX_INSTRUCTIONS_CHARS:,} characters.',
                    )
                )
        elif use is InstructionsUse.ON_REQUEST:
            cuts.append(
                Cut(
                    "instructions",
                    f'The instructions of "{server}" are left out: the server is not trusted. The model may read '
                    f"them at {instructions_uri(server)}, which marks the chat as holding untrusted content.",
                )
            )
        listing = text[start : start + len(head)] + text[listing_from:end].rstrip("\n")
        lines = sum(1 for line in listing.splitlines() if line.startswith("- "))
        label = f'Catalog of "{server}" ({lines:,} line{"" if lines == 1 else "s"})'
        parts.append(Part(Section.SYSTEM, PartKind.CATALOG, label, count(listing), preview(listing), server))
    if system.summarized:
        cuts.append(
            Cut(
                "catalog",
                f"The catalog is bounded to its budget: {system.listed:,} of {system.total:,} entries are listed "
                f"({system.catalog_tokens:,} tokens); the model finds the rest with search_resources.",
            )
        )
    joins = count(text) - sum(part.tokens for part in parts) + framing
    parts.append(Part(Section.SYSTEM, PartKind.FRAMING, "Headings, joins and the message's framing", joins))
    return parts, cuts
