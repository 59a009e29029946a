"""Sampling: a server borrows the user's model, with the user's consent, and only sees what they let through.

Each `sampling/createMessage` is put to the user first (the prompt may be edited): allow once,
for this chat, always for this server, or deny. A request too big to review is refused before
that (`sampling_limits`). It then runs on the user's configured model (a model hint is honoured
when it names a model of the same provider), capped at the user's token limit. An answer allowed
"once" is shown for review before it goes back; standing permissions skip both questions. When
the server offers tools, the model may ask for them: the request goes back to the server, which
runs them and asks again; that follow-up is covered by the first consent only when it continues
the exchange unchanged (`sampling_exchanges`), and the rounds are bounded by `MAX_TOOL_ROUNDS`.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from mcp.client.session import ClientRequestContext
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
)

from desktop_app.core.asks.attribution import CallEnded, unless_ended
from desktop_app.core.asks.context import CANCELLED_TURN, USER_REJECTED, AskContext
from desktop_app.core.asks.question import Question
from desktop_app.core.asks.sampling_exchanges import AllowedExchanges
from desktop_app.core.asks.sampling_limits import request_problem
from desktop_app.core.asks.sampling_messages import (
    MAX_TOOL_ROUNDS,
    ModelAnswer,
    ShownMessage,
    ShownTool,
    choose_model,
    hidden_count,
    read_answer,
    shown_messages,
    shown_tools,
    to_model_messages,
    to_result,
    tool_rounds,
    tool_specs,
    visible,
)
from desktop_app.core.asks.service import SamplingModel
from desktop_app.core.events import SamplingUsage
from desktop_app.core.model.llm import ProviderError, assemble, stream_completion
from desktop_app.core.model.settings import resolve_api_key

WHAT: Final = "a sampling request"


class SamplingDecision(StrEnum):
    ONCE = "once"
    CHAT = "chat"
    ALWAYS = "always"
    DENY = "deny"


@dataclass(frozen=True)
class SamplingConsent:
    """The user's decision, with the prompt as they edited it (None: unchanged)."""

    decision: SamplingDecision
    system_prompt: str | None = None
    texts: dict[int, str] | None = None
    """Edited message texts, by the message's index."""


@dataclass(frozen=True, kw_only=True)
class SamplingQuestion(Question[SamplingConsent]):
    """May this server use the user's model for this prompt?"""

    system_prompt: str
    messages: tuple[ShownMessage, ...]
    model: str
    max_tokens: int
    requested_max_tokens: int
    tools: tuple[ShownTool, ...] = ()
    wanted_context: str | None = None
    """The server asked for the user's conversation too (`includeContext`); it is never sent."""
    hidden: int = 0
    """Invisible characters taken out of the server's text (they would reach the model unseen)."""

    def fallback(self) -> SamplingConsent:
        return SamplingConsent(SamplingDecision.DENY)


@dataclass(frozen=True)
class ReviewReply:
    """Send the model's answer to the server (with `text` when the user edited it), or not."""

    send: bool
    text: str | None = None


@dataclass(frozen=True, kw_only=True)
class ReviewQuestion(Question[ReviewReply]):
    """The model answered a server's prompt: may the answer go back to the server?"""

    model: str
    text: str
    tool_uses: tuple[tuple[str, str], ...] = ()
    """(tool name, arguments as JSON) the model wants the server to run."""

    def fallback(self) -> ReviewReply:
        return ReviewReply(False)


class Sampling:
    """Answers one server's `sampling/createMessage` (both eras)."""

    def __init__(self, context: AskContext) -> None:
        self._context = context
        self.refused: str | None = None
        """Why the organisation's policy refuses every request (the host sets it); None: they are asked."""
        self._exchanges: AllowedExchanges[SamplingConsent] = AllowedExchanges()
        """Exchanges allowed once whose answer called tools: each covers its one faithful follow-up."""

    async def __call__(
        self, _request: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        context = self._context
        if self.refused is not None:
            return context.refuse(WHAT, self.refused)
        model = context.service.model
        if model is None:
            return context.refuse(WHAT, "no model is configured in MCP Desk")
        if params.max_tokens < 1:
            return context.refuse(WHAT, f"maxTokens must be at least 1, not {params.max_tokens}", INVALID_PARAMS)
        if not params.messages:
            return context.refuse(WHAT, "it has no messages", INVALID_PARAMS)
        problem = request_problem(params)
        if problem is not None:
            return context.refuse(WHAT, problem, INVALID_PARAMS)
        max_tokens = min(params.max_tokens, model.settings.max_tokens)
        if max_tokens < params.max_tokens:
            context.note("info", f"sampling maxTokens {params.max_tokens:,} capped at the user's limit {max_tokens:,}")
        if params.include_context not in (None, "none"):
            context.note("info", f"ignored includeContext={params.include_context}: sampling sees only the request")
        chosen = choose_model(params.model_preferences, model)

        scope = context.calls.scope()
        call_id = scope.call_id if scope is not None else None
        chat = context.service.chat
        consent = SamplingConsent(SamplingDecision.ALWAYS)
        covered = self._exchanges.take(call_id, params) if call_id is not None else None
        if context.service.grants.allows(context.server, chat):
            pass
        elif covered is not None:
            consent = covered  # the tool round of an exchange allowed once, with the user's edits
        else:
            asked = await context.ask(WHAT, lambda cid: self._question(params, cid, chosen, max_tokens))
            if isinstance(asked, ErrorData):
                return asked
            if asked.decision is SamplingDecision.DENY:
                context.note("info", "the user declined a sampling request")
                return ErrorData(code=USER_REJECTED, message="The user declined the sampling request")
            consent = asked
            self._grant(consent.decision)

        try:
            with scope.on_our_side() if scope is not None else contextlib.nullcontext():
                answer = await unless_ended(scope, self._run(params, model, chosen, max_tokens, consent))
        except ProviderError as exc:
            return context.refuse(WHAT, f"the model failed: {exc}", INTERNAL_ERROR)
        except CallEnded:
            return context.refuse(WHAT, CANCELLED_TURN)

        if consent.decision is SamplingDecision.ONCE:
            reviewed = await context.ask("a sampling answer", lambda cid: self._review(answer, cid))
            if isinstance(reviewed, ErrorData):
                return reviewed
            if not reviewed.send:
                context.note("info", "the user kept the model's answer from the server")
                return ErrorData(code=USER_REJECTED, message="The user did not let the model's answer go back")
            if reviewed.text is not None and not answer.tool_uses:
                answer = replace(answer, text=reviewed.text)
        context.note("info", f"sampled {answer.model}: {answer.stop_reason}, {len(answer.text):,} characters")
        result = to_result(answer, with_tools=bool(params.tools))
        if consent.decision is SamplingDecision.ONCE and call_id is not None and isinstance(result.content, list):
            self._exchanges.remember(call_id, params, consent, result.content)
        return result

    def _grant(self, decision: SamplingDecision) -> None:
        service, server = self._context.service, self._context.server
        if decision is SamplingDecision.CHAT:
            service.grants.allow_chat(server, service.chat)
        elif decision is SamplingDecision.ALWAYS:
            service.grants.allow_always(server)

    def _question(
        self, params: CreateMessageRequestParams, call_id: str | None, model: str, max_tokens: int
    ) -> SamplingQuestion:
        wanted = params.include_context if params.include_context not in (None, "none") else None
        return SamplingQuestion(
            server=self._context.server,
            call_id=call_id,
            system_prompt=visible(params.system_prompt or ""),
            messages=shown_messages(params.messages),
            model=model,
            max_tokens=max_tokens,
            requested_max_tokens=params.max_tokens,
            tools=shown_tools(params),
            wanted_context=wanted,
            hidden=hidden_count(params),
        )

    def _review(self, answer: ModelAnswer, call_id: str | None) -> ReviewQuestion:
        uses = tuple((name, json.dumps(arguments, ensure_ascii=False)) for _, name, arguments in answer.tool_uses)
        return ReviewQuestion(
            server=self._context.server, call_id=call_id, model=answer.model, text=answer.text, tool_uses=uses
        )

    async def _run(
        self,
        params: CreateMessageRequestParams,
        model: SamplingModel,
        chosen: str,
        max_tokens: int,
        consent: SamplingConsent,
    ) -> ModelAnswer:
        settings = replace(
            model.settings,
            model=chosen,
            max_tokens=max_tokens,
            temperature=params.temperature if params.temperature is not None else model.settings.temperature,
        )
        messages = to_model_messages(params, consent.system_prompt, consent.texts)
        tools = tool_specs(params)
        extra: dict[str, Any] = {}
        if params.stop_sequences:
            extra["stop"] = list(params.stop_sequences)
        if tools:
            mode = params.tool_choice.mode if params.tool_choice and params.tool_choice.mode else "auto"
            if tool_rounds(params.messages) >= MAX_TOOL_ROUNDS:
                self._context.note("warning", f"sampling reached {MAX_TOOL_ROUNDS} tool rounds: no more tools")
                mode = "none"
            extra["tool_choice"] = mode
        key = resolve_api_key(settings, model.secrets)
        chunks = [c async for c in stream_completion(settings, messages, tools, key, extra)]
        response = assemble(chunks, messages) if chunks else None
        usage = getattr(response, "usage", None)
        if usage is not None:
            used = (int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))
            self._context.publish(SamplingUsage(self._context.server, chosen, *used))
        return read_answer(response, chosen)
