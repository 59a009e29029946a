"""What a chat engine keeps between turns for their traces: token counts per model, the turns the last
ledger counted, the stored chat's trace writer, and the secrets every trace is scrubbed of.

A turn's traces begin with a `masked` record: the names of what they mask (never a value), so a
reader knows what each `***` may stand for and that nothing else was hidden."""

from __future__ import annotations

from desktop_app import __version__
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.message_parts import PartsMemo
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.chat.trace_secrets import SecretsInUse
from desktop_app.core.chat.turn_trace import TurnTrace
from desktop_app.core.ledger.accounting import CachedCounter
from desktop_app.core.ledger.scrub import Scrubber
from desktop_app.core.ledger.store import LedgerStore
from desktop_app.core.ledger.trace import TraceWriter, header


class TraceKeeping:
    """One chat at a time is remembered: its writer refers back to its last request, its ledgers to its
    turns as last counted."""

    def __init__(self) -> None:
        self._counters: dict[str, CachedCounter] = {}
        self._memo: tuple[str, PartsMemo] | None = None
        self._stored: tuple[str, TraceWriter] | None = None
        self._secrets: SecretsInUse | None = None

    def begin(self, trace: TurnTrace, secrets: SecretsInUse) -> None:
        """A traced turn begins: every trace is scrubbed with `secrets` from now on, and the turn's trace is
        told the names of what it masks, first."""
        self._secrets = secrets
        trace.record({"type": "masked", "names": secrets.names()})

    def scrubber(self) -> Scrubber:
        """What every trace is scrubbed with: the secrets in use as of the last turn."""
        return Scrubber() if self._secrets is None else self._secrets()

    def for_turn(self, conversation: Conversation, model: str, extra: TraceWriter | None) -> TurnTrace:
        """A turn's trace: beside the stored conversation, and to `extra` (`--trace`)."""
        return TurnTrace(self._writers(conversation, extra), self._counter(model), self._parts(conversation.id))

    def _counter(self, model: str) -> CachedCounter:
        """Token counts for `model`, remembered across the requests of its ledgers."""
        if model not in self._counters:
            self._counters = {model: CachedCounter(lambda text: count_tokens(model, text))}
        return self._counters[model]

    def _parts(self, conversation_id: str) -> PartsMemo:
        if self._memo is None or self._memo[0] != conversation_id:
            self._memo = (conversation_id, PartsMemo())
        return self._memo[1]

    def _writers(self, conversation: Conversation, extra: TraceWriter | None) -> list[TraceWriter]:
        writers = [] if extra is None else [extra]
        if conversation.store is not None:
            if self._stored is None or self._stored[0] != conversation.id:
                path = LedgerStore.beside(conversation.store.path).path(conversation.id)
                self._stored = (
                    conversation.id,
                    TraceWriter(path, self.scrubber, first=header(conversation.id, __version__)),
                )
            writers.append(self._stored[1])
        return writers
