"""The tool loop: stream the model, run the tools it asks for, repeat until it answers.

A turn runs in its own task and reports through an async iterator of events, so a UI can
render as it goes and cancel at any moment. Whatever stops a turn (an answer, the
iteration limit, a provider error, cancellation), the history it leaves is valid: every
assistant tool call has its tool result, and each message is committed once whole.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from mcp.shared.exceptions import MCPError

from desktop_app.core.apps.partial_input import ToolInputStream
from desktop_app.core.catalog import Catalog, CatalogTool
from desktop_app.core.chat.app_gateway import wire
from desktop_app.core.chat.approval import ApprovalPolicy, ApprovalRequest, Verdict, denial_message, validate_arguments
from desktop_app.core.chat.context import ContextBuilder, SystemPrompt
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.events import (
    ApprovalNeeded,
    ChatError,
    ChatEvent,
    ConversationTainted,
    ErrorKind,
    PromptInjected,
    ResourceRead,
    TextDelta,
    ToolCallStarted,
    ToolDecision,
    ToolInputPartial,
    ToolProgress,
    ToolResult,
    TurnFinished,
    Usage,
    event_to_dict,
    kept_in_history,
)
from desktop_app.core.chat.prompts import invoke_prompt
from desktop_app.core.chat.server_instructions import read_instructions
from desktop_app.core.chat.sign_in_turn import call_with_sign_in
from desktop_app.core.chat.synthetic import (
    INVOKE_PROMPT,
    READ_RESOURCE,
    SEARCH_RESOURCES,
    SEARCH_TOOLS,
    image_message,
    read_for_model,
    search_resources,
    search_tools,
    synthetic_tool_specs,
)
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.chat.tool_results import convert_tool_result
from desktop_app.core.chat.tool_specs import ToolOffer
from desktop_app.core.expansion import SecretLookup
from desktop_app.core.extensions.apps_meta import ui_resource_uri
from desktop_app.core.host import ServerHost
from desktop_app.core.model.llm import ProviderError, assemble, stream_completion
from desktop_app.core.model.settings import ChatOptions, ModelSettings, resolve_api_key
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError, describe_error
from desktop_app.core.trust import ToolHints, prompt_taint, resource_taint, tool_result_taint

log = logging.getLogger(__name__)

CANCELLED_RESULT: Final = "The user cancelled this tool call before it finished; it has no result."
UNKNOWN_TOOLS_LISTED: Final = 30


@dataclass(frozen=True)
class Attachment:
    """A resource the user attached to a message; it is read when the message is sent."""

    uri: str


class AttachmentError(ValueError):
    """An attachment could not be read; the message is not sent and the conversation is unchanged."""


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
    ) -> None:
        self.host = host
        self.settings = settings
        self.policy = policy
        self.options = options or ChatOptions()
        self.secrets = secrets
        self._builder: ContextBuilder | None = None
        self._builder_key: tuple[str, int] | None = None
        self._offer: ToolOffer | None = None
        self.loaded_tools: dict[str, list[str]] = {}
        """Per conversation: tools found with `search_tools`, most recent and relevant first, offered from then on."""

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
            self._builder = ContextBuilder(lambda text: count_tokens(model, text), self.options.catalog_budget)
            self._builder_key = key
        return self._builder

    async def system_prompt(self, query: str = "", catalog: Catalog | None = None) -> SystemPrompt:
        """The system prompt for `query` and its token figures, built off the event loop (no model library needed).

        It carries the instructions of the servers the user trusts as of now.
        """
        builder = self.context_builder()
        catalog = catalog or self.host.catalog
        trusted = frozenset(name for name in catalog.servers if self.host.trust(name).trusted)
        return await asyncio.to_thread(builder.build, catalog, query, trusted)

    async def full_catalog_tokens(self, catalog: Catalog) -> int:
        """What listing all of `catalog` would cost (the prompt leaves it uncounted when far over budget)."""
        return await asyncio.to_thread(self.context_builder().full_tokens, catalog)

    def start_turn(
        self,
        conversation: Conversation,
        text: str,
        attachments: Sequence[Attachment] = (),
        context: Sequence[str] = (),
    ) -> Turn:
        """Start a turn now; iterate the returned `Turn` for its events, `cancel()` to stop it.

        `context` is what MCP App views asked the model to know (`ui/update-model-context`): it
        travels with this user message, after the user's own text and attachments.
        """
        if not text.strip() and not attachments:
            raise ValueError("a message needs text or an attachment")
        return Turn(self, conversation, text, tuple(attachments), tuple(context))


class Turn:
    """One user message and everything the model does about it, as a stream of events."""

    def __init__(
        self,
        engine: ChatEngine,
        conversation: Conversation,
        text: str,
        attachments: tuple[Attachment, ...],
        context: tuple[str, ...] = (),
    ):
        self._engine = engine
        self.conversation = conversation
        self._text = text
        self._attachments = attachments
        self._context = context
        self._queue: asyncio.Queue[ChatEvent | None] = asyncio.Queue()
        self.events: list[ChatEvent] = []
        self.sent_messages: list[dict[str, Any]] = []
        """The messages exactly as last sent to the model (system prompt first)."""
        self._partial: list[str] | None = None
        self._pending: list[str] = []
        self._iterations = 0
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

    @property
    def done(self) -> bool:
        return self._task.done()

    def _emit(self, event: ChatEvent) -> None:
        self.events.append(event)
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

    def _after_cancel(self) -> TurnFinished:
        partial = "".join(self._partial or [])
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
        try:
            user, reads = await self._user_message()
        except AttachmentError as exc:
            self._emit(ChatError(ErrorKind.INPUT, str(exc)))
            return TurnFinished("error", "", 0)
        self.conversation.append(user)
        for read in reads:  # after the message, so a reopened chat shows them under it
            self._emit(read)
            self._taint(resource_taint(read.server, read.uri, engine.host.trust(read.server)))
        limit = engine.options.max_iterations
        api_key = resolve_api_key(engine.settings, engine.secrets)
        for iteration in range(1, limit + 1):
            self._iterations = iteration
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
            self.sent_messages = messages
            try:
                assistant, usage = await self._call_model(messages, tools, api_key)
            except ProviderError as exc:
                self._emit(ChatError(ErrorKind.PROVIDER, str(exc)))
                return TurnFinished("error", "", iteration)
            if usage is not None:
                self._emit(Usage(iteration, *usage))
            self.conversation.append(assistant)
            calls = assistant.get("tool_calls") or []
            if not calls:
                return TurnFinished("stop", assistant.get("content") or "", iteration)
            self._pending = [call["id"] for call in calls]
            extra: list[dict[str, Any]] = []
            for call in calls:
                text, more = await self._run_tool(call, search_offered=system.summarized, tool_search=tool_search)
                self.conversation.append({"role": "tool", "tool_call_id": call["id"], "content": text})
                self._pending.remove(call["id"])
                extra.extend(more)
            for message in extra:
                self.conversation.append(message)
        return TurnFinished("max_iterations", stop_message(limit), limit)

    async def _call_model(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], api_key: str | None
    ) -> tuple[dict[str, Any], tuple[int, int, int] | None]:
        """Stream one completion, emitting text as it comes; returns the whole assistant message."""
        chunks: list[Any] = []
        self._partial = []
        app_inputs = ToolInputStream(self._app_tool)
        async for chunk in stream_completion(self._engine.settings, messages, tools, api_key):
            chunks.append(chunk)
            delta = chunk.choices[0].delta if chunk.choices else None
            if delta is not None and delta.content:
                self._partial.append(delta.content)
                self._emit(TextDelta(delta.content))
            for partial in app_inputs.feed(getattr(delta, "tool_calls", None) or ()):
                self._emit(ToolInputPartial(partial.call_id, partial.server, partial.tool, partial.arguments))
        self._partial = None
        # litellm builds the response from every chunk in pure Python (~50 ms of CPU for a 2,000-token
        # answer on a busy machine): in a thread, the window goes on painting meanwhile.
        response = await asyncio.to_thread(assemble, chunks, messages) if chunks else None
        if response is None or not response.choices:
            return {"role": "assistant", "content": ""}, None
        message = response.choices[0].message
        # An assistant message that only calls tools has no `content` key (litellm drops a null one).
        assistant: dict[str, Any] = {"role": "assistant"}
        if message.content or not message.tool_calls:
            assistant["content"] = message.content or ""
        if message.tool_calls:
            assistant["tool_calls"] = [
                {
                    "id": call.id or f"call_{uuid.uuid4().hex[:12]}",
                    "type": "function",
                    "function": {"name": call.function.name or "", "arguments": call.function.arguments or "{}"},
                }
                for call in message.tool_calls
            ]
        usage = getattr(response, "usage", None)
        figures = None
        if usage is not None and usage.total_tokens:  # zeros: the provider sent none (litellm counts none)
            figures = (int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0), int(usage.total_tokens or 0))
        return assistant, figures

    def _app_tool(self, exposed_name: str) -> tuple[str, str] | None:
        """(server, tool) when the model's tool `exposed_name` comes with an MCP App view."""
        target = self._engine.host.catalog.tool(exposed_name)
        if target is None or ui_resource_uri(target.tool) is None:
            return None
        return target.server, target.tool.name

    # -- user message and attachments ---------------------------------------------------

    async def _user_message(self) -> tuple[dict[str, Any], list[ResourceRead]]:
        """The user message with its attachments read in, and the reads to show."""
        engine = self._engine
        parts = [self._text] if self._text.strip() else []
        images: list[dict[str, Any]] = []
        reads: list[ResourceRead] = []
        for attachment in self._attachments:
            catalog = engine.host.catalog
            out = await read_for_model(engine.host, catalog, attachment.uri, engine.options, search_offered=False)
            if out.is_error or out.server is None:
                raise AttachmentError(f"Cannot attach {attachment.uri}: {out.text}")
            reads.append(ResourceRead(attachment.uri, out.server, out.contents, out.truncated))
            resource = catalog.resource(attachment.uri)
            name = resource.name if resource is not None else attachment.uri.rsplit("/", 1)[-1]
            mime = (resource.mime_type if resource is not None else None) or out.contents[0].mime_type or "unknown type"
            parts.append(f"Attached resource {attachment.uri} ({name}, {mime}):\n{out.text}")
            if out.images:
                images.extend(image_message(out.images)["content"])
        parts.extend(self._context)
        text = "\n\n".join(parts)
        if images:
            return {"role": "user", "content": [{"type": "text", "text": text}, *images]}, reads
        return {"role": "user", "content": text}, reads

    # -- tools --------------------------------------------------------------------------

    async def _run_tool(
        self, call: dict[str, Any], *, search_offered: bool, tool_search: bool = False
    ) -> tuple[str, list[dict[str, Any]]]:
        """Run one tool call; returns the tool result text and messages to add after all results."""
        call_id, name = call["id"], call["function"]["name"]
        raw = call["function"]["arguments"]
        problem: str | None = None
        try:
            arguments = json.loads(raw or "{}")
        except ValueError as exc:
            arguments = None
            problem = f"the arguments are not valid JSON ({exc})"
        if problem is None and not isinstance(arguments, dict):
            problem = "the arguments must be a JSON object"
        synthetic = (
            name in (READ_RESOURCE, INVOKE_PROMPT)
            or (name == SEARCH_RESOURCES and search_offered)
            or (name == SEARCH_TOOLS and tool_search)
        )
        target = None if synthetic else self._engine.host.catalog.tool(name)
        shown = arguments if isinstance(arguments, dict) else {}
        if target is None:
            self._emit(ToolCallStarted(call_id, name, shown, None, None))
        else:
            tool_ = target.tool
            self._emit(
                ToolCallStarted(
                    call_id,
                    name,
                    shown,
                    target.server,
                    tool_.name,
                    title=tool_.title or (tool_.annotations.title if tool_.annotations is not None else None),
                    description=tool_.description,
                    hints=ToolHints.of(tool_),
                    trusted=self._engine.host.trust(target.server).trusted,
                )
            )
        if problem is not None or not isinstance(arguments, dict):
            return self._result(call_id, name, f"Tool '{name}' was not called: {problem}.", is_error=True), []
        if synthetic:
            return await self._run_synthetic(call_id, name, arguments, search_offered)
        if target is None:
            return self._result(call_id, name, self._unknown_tool(name), is_error=True), []
        return await self._run_server_tool(call_id, target, arguments), []

    def _result(self, call_id: str, name: str, text: str, **fields: Any) -> str:
        self._emit(ToolResult(call_id, name, text, **fields))
        return text

    def _unknown_tool(self, name: str) -> str:
        names = [READ_RESOURCE, INVOKE_PROMPT, *sorted(t.exposed_name for t in self._engine.host.catalog.tools())]
        shown = names[:UNKNOWN_TOOLS_LISTED]
        more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
        return f"There is no tool named '{name}'. Available tools: {json.dumps(shown)}{more}."

    async def _run_synthetic(
        self, call_id: str, name: str, arguments: dict[str, Any], search_offered: bool
    ) -> tuple[str, list[dict[str, Any]]]:
        engine = self._engine
        catalog = engine.host.catalog
        if name == READ_RESOURCE:
            uri, pages = arguments.get("uri"), arguments.get("pages")
            if not isinstance(uri, str) or not uri:
                return self._result(call_id, name, "read_resource needs a `uri` string.", is_error=True), []
            if (instructions := read_instructions(catalog, uri, engine.host.trust)) is not None:
                self._taint(instructions.taint)  # a server's own words, read like a resource of it
                return self._result(call_id, name, instructions.text, is_error=instructions.is_error), []
            page_spec = str(pages) if pages not in (None, "") and engine.options.pdf_text else None
            out = await read_for_model(
                engine.host, catalog, uri, engine.options, pages=page_spec, search_offered=search_offered
            )
            if out.server is not None and out.contents:
                self._emit(ResourceRead(uri, out.server, out.contents, out.truncated))
                self._taint(resource_taint(out.server, uri, engine.host.trust(out.server)))
            extra = [image_message(out.images)] if out.images else []
            return self._result(call_id, name, out.text, is_error=out.is_error), extra
        if name == INVOKE_PROMPT:
            prompt = arguments.get("name")
            if not isinstance(prompt, str) or not prompt:
                return self._result(call_id, name, "invoke_prompt needs a prompt `name`.", is_error=True), []
            server = arguments.get("server")
            result = await invoke_prompt(
                engine.host, catalog, prompt, arguments.get("arguments"), server if isinstance(server, str) else None
            )
            if result.messages and result.server is not None and result.name is not None:
                self._emit(PromptInjected(result.server, result.name, result.messages))
                self._taint(prompt_taint(result.server, result.name, engine.host.trust(result.server)))
            return self._result(call_id, name, result.text, is_error=result.is_error), list(result.messages)
        query, server = arguments.get("query"), arguments.get("server")
        if not isinstance(query, str) or not query.strip():
            return self._result(call_id, name, f"{name} needs a `query` string.", is_error=True), []
        if name == SEARCH_TOOLS:
            text, found, is_error = await asyncio.to_thread(
                search_tools, engine.tool_offer(), catalog, query, server if isinstance(server, str) else None
            )
            earlier = engine.loaded_tools.get(self.conversation.id, [])
            engine.loaded_tools[self.conversation.id] = found + [t for t in earlier if t not in found]
            return self._result(call_id, name, text, is_error=is_error), []
        builder = engine.context_builder()
        text, is_error = await asyncio.to_thread(
            search_resources, builder, catalog, query, server if isinstance(server, str) else None
        )
        return self._result(call_id, name, text, is_error=is_error), []

    async def _run_server_tool(self, call_id: str, target: CatalogTool, arguments: dict[str, Any]) -> str:
        """The only path to a server's `tools/call`: schema check, approval, then the call."""
        engine = self._engine
        name, server, tool = target.exposed_name, target.server, target.tool.name
        trust = engine.host.trust(server)
        request = ApprovalRequest.for_tool(
            target, arguments, call_id=call_id, trust=trust, taint=self.conversation.tainted
        )
        problem = validate_arguments(request.input_schema, arguments)
        if problem is not None:
            text = f"Tool '{name}' was not called: its arguments do not match its input schema ({problem})."
            return self._result(call_id, name, text, is_error=True)
        chat = self.conversation.id
        assessment = engine.policy.assess(chat, request)
        if assessment.allowed_by is None:
            taint = request.taint if request.under_taint else None
            self._emit(ApprovalNeeded(call_id, server, tool, arguments, assessment.rule_paused, taint))
        verdict = await engine.policy.decide(chat, request)
        self._emit(self._decision(call_id, server, tool, verdict))
        if not verdict.allowed:
            return self._result(call_id, name, denial_message(name, verdict), denied=True)
        note = ""
        if verdict.edited:
            note = f"[The user changed the arguments before allowing the call: {json.dumps(verdict.arguments)}]\n"

        async def report(progress: float, total: float | None, message: str | None) -> None:
            self._emit(ToolProgress(call_id, progress, total, message))

        try:
            connection = engine.host.connection(server)
            result = await call_with_sign_in(
                engine.host,
                server,
                call_id,
                lambda: connection.call_tool(tool, verdict.arguments, report, call_id=call_id),
            )
        except (ServerUnavailableError, ServerRequestTimeout) as exc:
            self._emit(ChatError(ErrorKind.SERVER, str(exc)))
            return self._result(call_id, name, f"{note}The tool call failed: {exc}", is_error=True)
        except MCPError as exc:
            self._taint(tool_result_taint(server, tool, request.hints, trust))  # the server's own words
            return self._result(call_id, name, f"{note}The server refused the call: {exc.message}", is_error=True)
        self._taint(tool_result_taint(server, tool, request.hints, trust))
        converted = convert_tool_result(result)
        return self._result(
            call_id,
            name,
            note + converted.text,
            is_error=converted.is_error,
            structured=converted.structured,
            binaries=converted.binaries,
            app_result=wire(result) if ui_resource_uri(target.tool) is not None else None,
        )

    @staticmethod
    def _decision(call_id: str, server: str, tool: str, verdict: Verdict) -> ToolDecision:
        return ToolDecision(
            call_id,
            server,
            tool,
            verdict.allowed,
            str(verdict.decided_by),
            None if verdict.decision is None else str(verdict.decision),
            verdict.arguments,
            edited=verdict.edited,
            reason=verdict.reason,
            rule_paused=verdict.rule_paused,
            taint=verdict.taint,
        )
