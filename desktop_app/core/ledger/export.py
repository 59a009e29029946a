"""Export a conversation: its trace (the same JSON Lines `mcp-desk run --trace` writes, for `mcp-desk
replay`) and a readable Markdown transcript, side by side, both scrubbed of secrets again, both 0600."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app import __version__
from desktop_app.core.atomic_file import write_private
from desktop_app.core.ledger.inert import code
from desktop_app.core.ledger.markdown import MarkdownTranscript
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.ledger.trace import header, write_records


@dataclass(frozen=True)
class ChatToExport:
    """What the conversations database keeps of one chat."""

    id: str
    title: str
    messages: Sequence[dict[str, Any]]
    events: Sequence[tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class Exported:
    trace: Path
    markdown: Path
    traced_turns: int
    """Turns the trace holds (0 for a chat from before traces were kept: its Markdown is all there is)."""


def export_paths(chosen: Path) -> tuple[Path, Path]:
    """The trace and the transcript for a name the user chose (`chat.md`, `chat.jsonl` or `chat`)."""
    base = chosen.with_suffix("") if chosen.suffix.lower() in (".md", ".jsonl", ".json") else chosen
    return base.with_name(base.name + ".jsonl"), base.with_name(base.name + ".md")


def export_chat(chat: ChatToExport, store: LedgerStore, scrubber: Scrubber, chosen: Path) -> Exported:
    """Write the chat's trace and transcript next to `chosen`; raises `OSError` when they cannot be written."""
    trace_path, markdown_path = export_paths(chosen)
    view = store.load(chat.id)
    records = view.records if view.records else [header(chat.id, __version__)]
    write_records(trace_path, records, scrubber)
    turns = len(view.turns())
    stamp = time.strftime("%Y-%m-%d %H:%M")
    note = f"Exported from MCP Desk {__version__} on {stamp}. The trace beside this file is {code(trace_path.name)}"
    note += "." if turns else " (this chat is from before traces were kept: it holds no requests)."
    transcript = MarkdownTranscript(chat.title, chat.messages, chat.events, view, scrubber, note).render()
    write_private(markdown_path, transcript)
    return Exported(trace_path, markdown_path, turns)
