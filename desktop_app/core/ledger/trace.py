"""The trace: one JSON object per line for everything a turn sent, heard and decided.

Record types (each line has `type`; records of a turn carry its `turn` id and `t`, milliseconds
since the turn began):

- `trace`: the first line: format, version, the conversation's id;
- `masked`: before a turn, the names (never the values) of the secrets its records have masked;
- `turn`: the user's message, its attachments, the model;
- `model_request`: the body the provider received (`payload`, secrets scrubbed) and where it went;
- `model_response`: the assistant message, the provider's usage, timing, or the error;
- `ledger`: the request's parts and their tokens (`parts.Ledger`), written once counted;
- `mcp`: one request the turn made of a server: server, method, params, result or error, timing;
- `question`: what a server asked the user and the answer;
- the chat's own events by their names (`ToolCallStarted`, `ApprovalNeeded`, `ToolDecision` with
  who decided, `ToolResult` with the text the model got, `ResourceRead`, `TurnFinished`, …).

Requests repeat the conversation so far, so a payload's `messages` that begin with the previous
request's are written as `{"same_as": [turn, request], "first": n, "then": [...]}`, and a ledger's
`parts` that begin with the previous ledger's the same way; `load_trace` puts them back: a long chat's
trace grows by what each request adds. Records are queued on the event loop and written by `flush`
in a worker thread, so the first token never waits for serialising or scrubbing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from desktop_app.core.atomic_file import open_private, write_private
from desktop_app.core.ledger.scrub import Scrubber

log = logging.getLogger(__name__)

FORMAT: Final = "mcp-desk-trace"
VERSION: Final = 1
MIN_SHARED: Final = 2
"""Fewer shared messages than this are written out again (a reference would save nothing)."""
INLINE_BASE64: Final = 1024
"""A server's base64 field (`blob`, `data`) longer than this is written as its size and digest."""
_BASE64_KEYS: Final = frozenset({"blob", "data"})


def header(conversation: str, app_version: str) -> dict[str, Any]:
    return {
        "type": "trace",
        "format": FORMAT,
        "version": VERSION,
        "conversation": conversation,
        "app": app_version,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


@dataclass
class _Shared:
    """The list a record repeated last (a request's messages, a ledger's parts), to refer back to."""

    key: list[Any] | None = None
    items: list[Any] = field(default_factory=list)

    def refer(self, key: list[Any], items: list[Any]) -> dict[str, Any] | list[Any]:
        """`items` as a reference to the last list where they begin with it; remembered for the next."""
        shared = 0
        for mine, theirs in zip(items, self.items, strict=False):  # by value: the records are plain JSON
            if mine != theirs:
                break
            shared += 1
        previous, self.key, self.items = self.key, key, items
        if previous is None or shared < MIN_SHARED:
            return items
        return {"same_as": previous, "first": shared, "then": items[shared:]}


class TraceWriter:
    """Appends records to a JSON Lines file (0600: it holds the whole conversation); `add` is cheap
    (the event loop), `flush` does the work."""

    def __init__(self, path: Path, scrubber: Callable[[], Scrubber], *, first: dict[str, Any] | None = None) -> None:
        """`first` is written before anything else when the file is new or empty (a `header`)."""
        self.path = path
        self._scrubber = scrubber
        self._pending: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        """Guards `_pending` only: `add` (the event loop) never waits for a flush's work."""
        self._writing = threading.Lock()
        """One flush at a time, so records are written in the order they were added."""
        self._messages = _Shared()
        self._parts = _Shared()
        self._first = first
        self.failed: str | None = None
        """Why the last write failed (a full disk, a folder that went away), or None."""

    def add(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._pending.append(record)

    def flush(self) -> None:
        """Scrub, encode and append what is queued (in order, whichever thread calls)."""
        with self._writing:
            with self._lock:
                records, self._pending = self._pending, []
            if not records:
                return
            scrubber = self._scrubber()
            # Shrunk first: only what a request adds to the one before is scrubbed (a long chat's
            # requests repeat thousands of messages).
            lines = [json.dumps(scrubber.value(self._shrink(r)), ensure_ascii=False) for r in records]
            try:
                with open_private(self.path, "a") as out:
                    if self._first is not None and out.tell() == 0:
                        out.write(json.dumps(scrubber.value(self._first), ensure_ascii=False) + "\n")
                    self._first = None
                    out.write("\n".join(lines) + "\n")
                self.failed = None
            except OSError as exc:
                self.failed = str(exc)
                log.warning("cannot write the trace %s: %s", self.path, exc)

    def _shrink(self, record: dict[str, Any]) -> dict[str, Any]:
        """A request's messages, or a ledger's parts, as a reference to the previous one's where they repeat it."""
        key = [record.get("turn"), record.get("request")]
        kind, payload, ledger = record.get("type"), record.get("payload"), record.get("ledger")
        if kind == "model_request" and isinstance(payload, dict) and isinstance(payload.get("messages"), list):
            return {**record, "payload": {**payload, "messages": self._messages.refer(key, payload["messages"])}}
        if kind == "ledger" and isinstance(ledger, dict) and isinstance(ledger.get("parts"), list):
            return {**record, "ledger": {**ledger, "parts": self._parts.refer(key, ledger["parts"])}}
        return record


def summarize_base64(value: Any) -> Any:
    """`value` with each long base64 field of an MCP result (a blob, an image's data) replaced by
    `[base64: N bytes, sha256 …]`: a trace shows what came, not the bytes again."""
    if isinstance(value, dict):
        return {
            key: _digest(item)
            if key in _BASE64_KEYS and isinstance(item, str) and len(item) > INLINE_BASE64
            else summarize_base64(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [summarize_base64(item) for item in value]
    return value


def _digest(data: str) -> str:
    size = len(data) * 3 // 4 - data.count("=", max(0, len(data) - 2))
    return f"[base64: {size:,} bytes, sha256 {hashlib.sha256(data.encode('ascii', 'replace')).hexdigest()[:16]}]"


def load_trace(path: Path) -> list[dict[str, Any]]:
    """Every record of a trace file, with shared messages put back; unreadable lines are skipped.

    Raises `OSError` when the file cannot be read, `ValueError` when it is not a trace at all.
    """
    records: list[dict[str, Any]] = []
    skipped = 0
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                skipped += 1  # a line cut short when the app was killed mid-write
                continue
            if isinstance(record, dict):
                records.append(record)
    if records and records[0].get("format") not in (None, FORMAT):
        raise ValueError(f"{path} is not an MCP Desk trace")
    if not records and skipped:
        raise ValueError(f"{path} is not an MCP Desk trace")
    if skipped:
        log.info("skipped %d unreadable line(s) of %s", skipped, path)
    return expand_shared(records)


def expand_shared(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records with every `same_as` reference replaced by the messages (or ledger parts) it stands for."""
    messages: dict[tuple[Any, Any], list[Any]] = {}
    parts: dict[tuple[Any, Any], list[Any]] = {}
    out: list[dict[str, Any]] = []
    for record in records:
        key = (record.get("turn"), record.get("request"))
        kind, payload, ledger = record.get("type"), record.get("payload"), record.get("ledger")
        if kind == "model_request" and isinstance(payload, dict):
            whole = _expanded(payload.get("messages"), messages, key)
            record = record if whole is None else {**record, "payload": {**payload, "messages": whole}}
        elif kind == "ledger" and isinstance(ledger, dict):
            whole = _expanded(ledger.get("parts"), parts, key)
            record = record if whole is None else {**record, "ledger": {**ledger, "parts": whole}}
        out.append(record)
    return out


def _expanded(items: Any, seen: dict[tuple[Any, Any], list[Any]], key: tuple[Any, Any]) -> list[Any] | None:
    """`items` whole (a `same_as` reference put back), remembered under `key`; None when not a list."""
    if isinstance(items, dict) and "same_as" in items:
        earlier = seen.get(tuple(items.get("same_as") or ()), [])
        items = earlier[: int(items.get("first", 0))] + list(items.get("then") or [])
    if not isinstance(items, list):
        return None
    seen[key] = items
    return items


def write_records(path: Path, records: Iterable[dict[str, Any]], scrubber: Scrubber) -> None:
    """A whole trace written at once (an export): scrubbed again, shared messages referenced."""
    writer = TraceWriter(path, lambda: scrubber)
    for record in records:
        writer.add(record)
    write_private(path, "")
    writer.flush()
    if writer.failed is not None:
        raise OSError(writer.failed)
