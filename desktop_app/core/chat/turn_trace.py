"""What one turn tells its traces: the request as sent, the reply, the ledger, MCP exchanges, questions, events.

The turn calls these methods as things happen, on the event loop; each only queues a record.
Writing (scrubbing, encoding, appending) and counting the ledger run in worker threads after
the model's reply has arrived, so the first token waits for none of it. A turn with no trace
to write (no stored conversation, no `--trace`) records nothing and counts nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from desktop_app.core.asks.question import Question
from desktop_app.core.chat.events import ChatEvent, ModelCallStarted, TextDelta, ToolInputPartial, event_to_dict
from desktop_app.core.chat.message_parts import PartsMemo
from desktop_app.core.chat.request_ledger import RequestSnapshot, build_ledger
from desktop_app.core.ledger.trace import TraceWriter, summarize_base64
from desktop_app.core.model.chat_model import ModelReply
from desktop_app.core.model.llm import SentRequest
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_errors import describe_error

log = logging.getLogger(__name__)


def traced_attachments(recorded: object) -> list[ResourceRef]:
    """The attachments a `turn` record lists, each from the server it was read from (`{"uri", "server"}`);
    an older trace lists plain URIs, read then from whichever one server offers them."""
    found: list[ResourceRef] = []
    for item in recorded if isinstance(recorded, list) else []:
        if isinstance(item, dict) and isinstance(item.get("uri"), str):
            server = item.get("server")
            found.append(ResourceRef(server if isinstance(server, str) else "", item["uri"]))
        elif isinstance(item, str):
            found.append(ResourceRef("", item))
    return found


def plain(value: Any) -> Any:
    """A JSON-safe form of a question or an answer (dataclasses, pydantic models, enums, bytes)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.repr}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


class TurnTrace:
    """The records of one turn, queued to every writer the turn has."""

    def __init__(self, writers: Sequence[TraceWriter], count: Callable[[str], int], memo: PartsMemo) -> None:
        """`count` and `memo` are the conversation's: counts and turns its earlier ledgers found."""
        self.id = uuid.uuid4().hex[:12]
        self.writers = list(writers)
        self._count = count
        self._memo = memo
        self._started = time.monotonic()
        self._work: list[asyncio.Task[None]] = []
        self._sent: dict[int, tuple[SentRequest, int]] = {}
        self.call_ids: set[str] = set()
        """Tool calls of this turn: questions asked during them belong to it."""
        self.running = True

    @property
    def active(self) -> bool:
        return bool(self.writers)

    def _ms(self, at: float | None = None) -> int:
        return round(((time.monotonic() if at is None else at) - self._started) * 1000)

    def record(self, record: dict[str, Any], at: int | None = None) -> None:
        """Queue `record` for every writer; `at` is when it happened (ms into the turn), if not now."""
        if not self.writers:
            return
        line = {"type": record["type"], "turn": self.id, "t": self._ms() if at is None else at, **record}
        for writer in self.writers:
            writer.add(line)

    # -- the turn -----------------------------------------------------------------------------

    def begin(
        self, conversation: str, model: str, text: str, attachments: Sequence[ResourceRef], context: Sequence[str]
    ) -> None:
        started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self.record(
            {
                "type": "turn",
                "conversation": conversation,
                "model": model,
                "message": text,
                "attachments": [{"uri": a.uri, "server": a.server or None} for a in attachments],
                "context": list(context),
                "started": started,
            }
        )

    def event(self, event: ChatEvent) -> None:
        if isinstance(event, TextDelta | ToolInputPartial | ModelCallStarted):
            return  # the text is in the reply; partial inputs end as the call's arguments; requests are `sent`
        if hasattr(event, "call_id") and isinstance(event.call_id, str):
            self.call_ids.add(event.call_id)
        self.record(event_to_dict(event))

    def sent(self, number: int, request: SentRequest) -> None:
        """Request `number` went to the provider; recorded with its reply, once litellm is done with the body."""
        self._sent[number] = (request, self._ms())

    def reply(self, number: int, reply: ModelReply | None, error: str | None = None, partial: str = "") -> None:
        """The model's answer to request `number`, or the error or stop that ended it (after the request)."""
        if (sent := self._sent.pop(number, None)) is not None:
            request, at = sent
            body = request.body
            self.record({"type": "model_request", "request": number, "api_base": request.api_base, "payload": body}, at)
        record: dict[str, Any] = {"type": "model_response", "request": number}
        if reply is not None:
            usage = reply.usage
            record["message"] = reply.message
            record["usage"] = None if usage is None else dataclasses.asdict(usage)
            record["first_token_ms"] = None if reply.first_token_s is None else round(reply.first_token_s * 1000)
            record["ms"] = round(reply.elapsed_s * 1000)
        else:
            record["message"] = {"role": "assistant", "content": partial}
            record["usage"] = None
            record["error"] = error or "stopped before the answer was complete"
        self.record(record)

    def ledger_later(self, number: int, snapshot: RequestSnapshot, reply: ModelReply | None) -> None:
        """Count request `number`'s ledger in a worker thread, then write it (with what is queued)."""
        if not self.writers:
            return
        usage = None if reply is None else reply.usage
        sent = None if reply is None or reply.sent is None else reply.sent.body

        def count_and_write() -> None:
            try:
                ledger = build_ledger(snapshot, self._count, usage, sent, self._memo)
            except Exception:  # a ledger that cannot be counted must not end the turn
                log.exception("cannot count the ledger of a request")
            else:
                self.record({"type": "ledger", "request": number, "ledger": ledger.to_dict()})
            self._flush()

        self._work.append(asyncio.create_task(asyncio.to_thread(count_and_write), name="ledger"))

    def mcp(
        self,
        server: str,
        method: str,
        params: dict[str, Any],
        started: float,
        result: Any,
        error: BaseException | None,
        call_id: str | None,
    ) -> None:
        record: dict[str, Any] = {"type": "mcp", "server": server, "method": method, "params": plain(params)}
        if call_id is not None:
            record["call_id"] = call_id
        if error is None:
            record["result"] = summarize_base64(plain(result))
        elif isinstance(error, asyncio.CancelledError):
            record["error"] = "cancelled"
        else:
            record["error"] = describe_error(error) if isinstance(error, Exception) else type(error).__name__
        record["started_ms"] = self._ms(started)
        record["ms"] = round((time.monotonic() - started) * 1000)
        self.record(record)

    def question(self, question: Question[Any], answer: Any, started: float, answered: bool) -> None:
        """A question a server put to the user, and the answer (none when withdrawn or timed out)."""
        if not (self.running and (question.call_id is None or question.call_id in self.call_ids)):
            return
        asked = plain(question)
        record = {
            "type": "question",
            "kind": type(question).__name__,
            "server": question.server,
            "call_id": question.call_id,
            "question": asked,
            "answer": plain(answer) if answered else None,
            "answered": answered,
            "started_ms": self._ms(started),
            "ms": round((time.monotonic() - started) * 1000),
        }
        self.record(record)

    # -- writing --------------------------------------------------------------------------------

    def _flush(self) -> None:
        for writer in self.writers:
            writer.flush()

    def flush_soon(self) -> None:
        if self.writers:
            self._work.append(asyncio.create_task(asyncio.to_thread(self._flush), name="trace"))

    async def close(self) -> None:
        """Wait for the ledgers being counted, then write everything left."""
        self.running = False
        if not self.writers:
            return
        work, self._work = self._work, []
        with contextlib.suppress(Exception):
            await asyncio.gather(*work, return_exceptions=True)
        await asyncio.to_thread(self._flush)
