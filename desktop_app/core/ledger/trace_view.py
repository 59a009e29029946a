"""A loaded trace, read by turn and by request: what the ledger window, replay and export need."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from desktop_app.core.ledger.parts import Ledger


@dataclass(frozen=True)
class RequestView:
    """One model request of a trace with everything recorded about it."""

    turn: str
    number: int
    """1-based within its turn."""
    payload: dict[str, Any] | None
    """The body the provider received (scrubbed); None when nothing reached it."""
    api_base: str
    ledger_record: dict[str, Any] | None = field(repr=False)
    """The ledger as written; read into a `Ledger` when first asked for (a long chat has thousands)."""
    response: dict[str, Any] | None
    """The `model_response` record; None while (or if) none arrived."""

    @cached_property
    def ledger(self) -> Ledger | None:
        """The request's ledger; None when none was written or this version cannot read it."""
        if self.ledger_record is None:
            return None
        try:
            return Ledger.from_dict(self.ledger_record)
        except ValueError:
            return None

    @property
    def answer(self) -> str:
        """The text of the assistant message this request produced ("" when it only called tools)."""
        message = (self.response or {}).get("message") or {}
        content = message.get("content")
        return content if isinstance(content, str) else ""


class TraceView:
    """Records of a trace (`load_trace`'s output), grouped."""

    def __init__(self, records: Iterable[dict[str, Any]]) -> None:
        self.records = list(records)

    def turns(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("type") == "turn"]

    def of_turn(self, turn: str, *types: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("turn") == turn and (not types or r.get("type") in types)]

    def requests(self, turn: str | None = None) -> list[RequestView]:
        """Every model request (of `turn`, when given), in order."""
        found: dict[tuple[str, int], dict[str, Any]] = {}
        order: list[tuple[str, int]] = []
        for record in self.records:
            kind = record.get("type")
            if kind not in ("model_request", "model_response", "ledger"):
                continue
            key = (str(record.get("turn")), int(record.get("request") or 0))
            if turn is not None and key[0] != turn:
                continue
            if key not in found:
                found[key] = {}
                order.append(key)
            found[key][str(kind)] = record
        return [self._request(key, found[key]) for key in order]

    @staticmethod
    def _request(key: tuple[str, int], parts: dict[str, dict[str, Any]]) -> RequestView:
        sent = parts.get("model_request") or {}
        ledger = (parts.get("ledger") or {}).get("ledger")
        payload = sent.get("payload")
        return RequestView(
            key[0],
            key[1],
            payload if isinstance(payload, dict) else None,
            str(sent.get("api_base") or ""),
            ledger if isinstance(ledger, dict) else None,
            parts.get("model_response"),
        )

    def request_for_answer(self, text: str, ordinal: int = 0) -> RequestView | None:
        """The request whose answer is `text` (the `ordinal`-th such one, counting from 0), or, while an
        answer still streams, the last request when it has no response yet."""
        requests = self.requests()
        matching = [r for r in requests if r.answer and r.answer == text]
        if matching:
            return matching[min(ordinal, len(matching) - 1)]
        if requests and requests[-1].response is None:
            return requests[-1]
        return None


def transcript_document(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The trace of one turn as the older `--transcript` file had it: the model, the taint, the
    messages as last sent and the chat's events (the answer's text is in the messages)."""
    view = TraceView(records)
    turns = view.turns()
    requests = view.requests()
    last = requests[-1].payload if requests else None
    events = [
        {k: v for k, v in r.items() if k not in ("turn", "t")}
        for r in view.records
        if str(r.get("type", ""))[:1].isupper()
    ]
    return {
        "model": turns[-1].get("model", "") if turns else "",
        "taint": [e["reason"] for e in events if e["type"] == "ConversationTainted"],
        "messages": (last or {}).get("messages", []),
        "events": events,
    }
