"""The tool loop: stream the model, run the tools it asks for, repeat until it answers.

A turn runs in its own task and reports through an async iterator of events, so a UI can
render as it goes and cancel at any moment. Whatever stops a turn (an answer, the
iteration limit, a provider error, cancellation), the history it leaves is valid: every
assistant tool call has its tool result, and each message is committed once whole.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any, Final

from desktop_app.core.apps.partial_input import ToolInputStream
from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.chat.context import ContextBuilder, SystemPrompt
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.events import (
    ChatError,
    ChatEvent,
    ConversationTainted,
    ErrorKind,
    ModelCallStarted,
    ServersConnecting,
    TextDelta,
    ToolInputPartial,
    ToolResult,
    TurnFinished,
    Usage,
    event_to_dict,
    kept_in_history,
)
from desktop_app.core.chat.request_ledger import RequestSnapshot, claims_now
from desktop_app.core.chat.servers_connecting import connecting, wait_connected
from desktop_app.core.chat.synthetic import synthetic_tool_specs
from desktop_app.core.chat.synthetic_calls import SyntheticTools
from desktop_app.core.chat.tokens import count_many, count_tokens
from desktop_app.core.chat.tool_calls import ToolCalls
from desktop_app.core.chat.tool_specs import ToolOffer
from desktop_app.core.chat.trace_keeping import TraceKeeping
from desktop_app.core.chat.trace_secrets import SecretsInUse
from desktop_app.core.chat.traced_host import TracedHost, watch_questions
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.chat.user_message import AttachmentError, user_message
from desktop_app.core.expansion import SecretLookup
from desktop_app.core.extensions.apps_meta import ui_resource_uri
from desktop_app.core.host import ServerHost
from desktop_app.core.ledger.trace import TraceWriter
from desktop_app.core.model.chat_model import ChatModel, LiteLLMModel, ModelReply
from desktop_app.core.model.llm import ProviderError, SentRequest
from desktop_app.core.model.settings import ChatOptions, ModelSettings, resolve_api_key
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_errors import describe_error
from desktop_app.core.trust import resource_taint

log = logging.getLogger(__name__)

CANCELLED_RESULT: Final = "The user cancelled this tool call before it finished; it has no result."


def stop_message(limit: int) -> str:
    return (
        f"Stopped: the model made {limit} calls in this turn without giving a final answer "
        "(the iteration limit). Send another message to let it continue."
    )


class ChatEngine:
    """Runs turns against the host's servers with one model; settings may change between turns."""

    def __init__(
        self,
        host: ServerHost,
        settings: ModelSettings,
        policy: ApprovalPolicy,
        *,
        options: ChatOptions | None = None,
        secrets: SecretLookup | None = None,
        model: ChatModel | None = None,
    ) -> None:
        """`model` answers each request: litellm by default, a recording when a trace is replayed."""
        self.host = host
        self.settings = settings
        self.policy = policy
        self.options = options or ChatOptions()
        self.secrets = secrets
        self.model: ChatModel = model or LiteLLMModel()
        self._builder: ContextBuilder | None = None
        self._builder_key: tuple[str, int] | None = None
        self._offer: ToolOffer | None = None
        self.loaded_tools: dict[str, list[str]] = {}
        """Per conversation: tools found with `search_tools`, most recent and relevant first, offered from then on."""
        self.traces = TraceKeeping()

    def tool_offer(self) -> ToolOffer:
        """The server tools each call carries, within the options' tool budget (specs cached per catalog)."""
        if self._offer is None or self._offer.budget != self.options.max_tools:
            self._offer = ToolOffer(self.options.max_tools)
        return self._offer

    def context_builder(self) -> ContextBuilder:
        """The prompt builder for the current model's tokenizer and budget."""
        key = (self.settings.model, self.options.catalog_budget)
        if self._builder is None or self._builder_key != key:
            model = self.settings.model
            self._builder = ContextBuilder(
                lambda text: count_tokens(model, text),
                self.options.catalog_budget,
                lambda texts: count_many(model, texts),
            )
            self._builder_key = key
        return self._builder

    async def system_prompt(self, query: str = "", catalog: Catalog | None = None) -> SystemPrompt:
        """The system prompt for `query` and its token figures, built off the event loop (no model library needed).

        It carries the instructions of the servers the user trusts as of now.
        """
        builder = self.context_builder()
        catalog = catalog or self.host.catalog
        return await asyncio.to_thread(builder.build, catalog, query, self.trusted(catalog))

    def trusted(self, catalog: Catalog) -> frozenset[str]:
        """The servers of `catalog` the user trusts as of now."""
        return frozenset(name for name in catalog.servers if self.host.trust(name).trusted)

    async def full_catalog_tokens(self, catalog: Catalog) -> int:
        """What listing all of `catalog` would cost (the prompt leaves it uncounted when far over budget)."""
        return await asyncio.to_thread(self.context_builder().full_tokens, catalog)

    def start_turn(
        self,
        conversation: Conversation,
        text: str,
        attachments: Sequence[ResourceRef] = (),
        context: Sequence[str] = (),
        trace: TraceWriter | None = None,
    ) -> Turn:
        """Start a turn now; iterate the returned `Turn` for its events, `cancel()` to stop it.

        `context` is what MCP App views asked the model to know (`ui/update-model-context`): it
        travels with this user message, after the user's own text and attachments. A stored
        conversation's turns are traced beside it (`core/ledger/store.py`); `trace` adds a file.
        """
        if not text.strip() and not attachments:
            raise ValueError("a message needs text or an attachment")
        return Turn(self, conversation, text, tuple(attachments), tuple(context), trace)


class Turn:
    """One user message and everything the model does about it, as a stream of events."""

    def __init__(
        self,
        engine: ChatEngine,
        conversation: Conversation,
        text: str,
        attachments: tuple[ResourceRef, ...],
        context: tuple[str, ...] = (),
        trace: TraceWriter | None = None,
    ):
        self._engine = engine
        self.conversation = conversation
        self._text = text
        self._attachments = attachments
        self._context = context
        self._queue: asyncio.Queue[ChatEvent | None] = asyncio.Queue()
        self.events: list[ChatEvent] = []
        self.trace = engine.traces.for_turn(conversation, engine.settings.model, trace)
        self._host: TurnHost = TracedHost(engine.host, self.trace.mcp) if self.trace.active else engine.host
        synthetic = SyntheticTools(
            self._host,
            engine.options,
            engine.context_builder(),
            engine.tool_offer(),
            engine.loaded_tools,
            self._emit,
            self._taint,
        )
        self._tools = ToolCalls(self._host, engine.policy, conversation, synthetic, self._emit, self._taint)
        self._partial: list[str] | None = None
        self._app_inputs: ToolInputStream | None = None
        self._pending: list[str] = []
        self._iterations = 0
        self._writing: asyncio.Future[None] | None = None
        self._snapshot: RequestSnapshot | None = None
        self._task = asyncio.create_task(self._run(), name="chat-turn")

    def __aiter__(self) -> AsyncIterator[ChatEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[ChatEvent]:
        while (event := await self._queue.get()) is not None:
            yield event

    def cancel(self) -> None:
        """Stop now: the stream is closed, a running tool call cancelled, the history kept valid."""
        self._task.cancel()

    async def wait(self) -> TurnFinished:
        """Run to the end (without consuming the iterator) and return the final event."""
        await asyncio.shield(self._task)
        final = self.events[-1]
        assert isinstance(final, TurnFinished)
        return final

    async def traced(self) -> TurnFinished:
        """Run to the end, then wait until its traces are written (the ledgers counted after it)."""
        final = await self.wait()
        if self._writing is not None:
            await asyncio.shield(self._writing)
        return final

    @property
    def done(self) -> bool:
        return self._task.done()

    def _emit(self, event: ChatEvent) -> None:
        self.events.append(event)
        self.trace.event(event)
        if kept_in_history(event):
            # A result's text is the tool message that follows it: kept once, there.
            kept = replace(event, text="") if isinstance(event, ToolResult) else event
            self.conversation.record(event_to_dict(kept))
        self._queue.put_nowait(event)

    def _taint(self, reason: str | None) -> None:
        """Untrusted content reached the model: the conversation remembers why (once per reason)."""
        if reason is not None and self.conversation.add_taint(reason):
            self._emit(ConversationTainted(reason))

    async def _run(self) -> None:
        watch = watch_questions(self._engine.host.questions) if self.trace.active else None
        if watch is not None:
            watch.listeners.append(self.trace.question)
        try:
            try:
                finished = await self._loop()
            except asyncio.CancelledError:
                finished = self._after_cancel()
            except Exception as exc:
                log.exception("chat turn failed")
                self._repair("The tool call was interrupted by an internal error.")
                self._emit(ChatError(ErrorKind.INTERNAL, f"internal error: {describe_error(exc)}"))
                finished = TurnFinished("error", "", self._iterations)
            self._emit(finished)
            self._queue.put_nowait(None)
        finally:
            if watch is not None:
                watch.listeners.remove(self.trace.question)
            # Written after the end is told and the turn is done: nobody waits for the ledgers' counting.
            self._writing = asyncio.ensure_future(self.trace.close())

    def _after_cancel(self) -> TurnFinished:
        partial = "".join(self._partial or [])
        if self._partial is not None:  # stopped while the model answered: that request is traced as stopped
            self.trace.reply(self._iterations, None, "cancelled by the user", partial)
            if self._snapshot is not None:
                self.trace.ledger_later(self._iterations, self._snapshot, None)
        if self._partial is not None and partial:
            self.conversation.append({"role": "assistant", "content": partial})
        self._repair(CANCELLED_RESULT, cancelled=True)
        return TurnFinished("cancelled", partial, self._iterations)

    def _repair(self, result: str, *, cancelled: bool = False) -> None:
        """Give every tool call still waiting a result, so the history stays valid for any provider."""
        for call_id in self._pending:
            self._emit(ToolResult(call_id, "", result, is_error=not cancelled, cancelled=cancelled))
            self.conversation.append({"role": "tool", "tool_call_id": call_id, "content": result})
        self._pending = []

    # -- the loop -----------------------------------------------------------------------

    async def _loop(self) -> TurnFinished:
        engine = self._engine
        api_key = resolve_api_key(engine.settings, engine.secrets)
        if self.trace.active:
            engine.traces.begin(self.trace, SecretsInUse(engine.host, api_key))
            self.trace.begin(self.conversation.id, engine.settings.model, self._text, self._attachments, self._context)
        try:
            user, reads = await user_message(
                self._host, engine.options, self._text, self._attachments, self._context, self.conversation.id
            )
        except AttachmentError as exc:
            self._emit(ChatError(ErrorKind.INPUT, str(exc)))
            return TurnFinished("error", "", 0)
        self.conversation.append(user)
        for read in reads:  # after the message, so a reopened chat shows them under it
            self._emit(read)
            self._taint(resource_taint(read.server, read.uri, engine.host.trust(read.server)))
        if waiting := connecting(engine.host.connections):  # the app has just started: their listings come
            self._emit(ServersConnecting(waiting))
            await wait_connected(engine.host.connections, waiting, engine.options.connecting_wait)
        limit = engine.options.max_iterations
        for iteration in range(1, limit + 1):
            self._iterations = iteration
            self._emit(ModelCallStarted(iteration))  # the request is built and sent from here on
            catalog = engine.host.catalog
            system = await engine.system_prompt(self._text, catalog)
            offer = engine.tool_offer()
            loaded = list(engine.loaded_tools.get(self.conversation.id, []))
            # Off the loop: the first call on a new catalog builds every tool's spec.
            server_tools = await asyncio.to_thread(offer.specs, catalog, self._text, loaded)
            tool_search = offer.cut(catalog)
            tools = synthetic_tool_specs(engine.options, search=system.summarized, tool_search=tool_search)
            tools += server_tools
            messages = [{"role": "system", "content": system.text}, *self.conversation.messages]
            self._snapshot = snapshot = RequestSnapshot(
                engine.settings.model,
                system,
                catalog,
                engine.trusted(catalog),
                tuple(self.conversation.messages),
                tuple(tools),
                tool_search,
                engine.options.max_tools,
                engine.options.read_cap_bytes,
                tuple(self.conversation.events),
                claims_now(engine.host.connections),
            )
            try:
                reply = await self._call_model(messages, tools, api_key)
            except ProviderError as exc:
                self.trace.reply(iteration, None, str(exc), "".join(self._partial or []))
                self.trace.ledger_later(iteration, snapshot, None)
                self._emit(ChatError(ErrorKind.PROVIDER, str(exc)))
                return TurnFinished("error", "", iteration)
            self.trace.reply(iteration, reply)
            self.trace.ledger_later(iteration, snapshot, reply)
            if reply.usage is not None:
                usage = reply.usage
                self._emit(Usage(iteration, usage.prompt_tokens, usage.completion_tokens, usage.total_tokens))
            assistant = reply.message
            self.conversation.append(assistant)
            calls = assistant.get("tool_calls") or []
            if not calls:
                return TurnFinished("stop", assistant.get("content") or "", iteration)
            self._pending = [call["id"] for call in calls]
            extra: list[dict[str, Any]] = []
            for call in calls:
                text, more = await self._tools.run(call, search_offered=system.summarized, tool_search=tool_search)
                self.conversation.append({"role": "tool", "tool_call_id": call["id"], "content": text})
                self._pending.remove(call["id"])
                extra.extend(more)
            for message in extra:
                self.conversation.append(message)
        return TurnFinished("max_iterations", stop_message(limit), limit)

    async def _call_model(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], api_key: str | None
    ) -> ModelReply:
        """One model call, its text and app tools' partial inputs emitted as they stream in."""
        self._partial = []
        self._app_inputs = ToolInputStream(self._app_tool)
        reply = await self._engine.model.complete(self._engine.settings, messages, tools, api_key, self)
        self._partial = None
        return reply

    # -- what the model call tells the turn as it streams (`ModelListener`) ---------------

    def text(self, delta: str) -> None:
        if self._partial is not None:
            self._partial.append(delta)
        self._emit(TextDelta(delta))

    def tool_call_deltas(self, deltas: Sequence[Any]) -> None:
        for partial in self._app_inputs.feed(deltas) if self._app_inputs is not None else ():
            self._emit(ToolInputPartial(partial.call_id, partial.server, partial.tool, partial.arguments))

    def sent(self, request: SentRequest) -> None:
        self.trace.sent(self._iterations, request)

    def _app_tool(self, exposed_name: str) -> tuple[str, str] | None:
        """(server, tool) when the model's tool `exposed_name` comes with an MCP App view."""
        target = self._engine.host.catalog.tool(exposed_name)
        if target is None or ui_resource_uri(target.tool) is None:
            return None
        return target.server, target.tool.name
