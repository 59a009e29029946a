"""Elicitation: a server asks the user to fill in a form, or to visit a web page.

Form mode shows the server's schema as a form (see `form_schema`); URL mode shows the URL and its
domain as the browser will read them (see `link_check`: look-alike names in their xn-- form, a
misleading `user@` called out, https only, a long address shortened with the whole one a click
away, one over 4 KiB refused as not asked) and opens it only when the user agrees. The
answer is one of the spec's three actions: accept (with the form's content), decline (an
explicit no), cancel (dismissed). A tool call that fails with "URL elicitation required"
(-32042) is answered the same way: each URL is put to the user, and once every one is accepted
and the server reports it complete, the call is tried again, once.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final, Literal

from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import INVALID_PARAMS, ElicitRequestParams, ElicitRequestURLParams, ElicitResult, ErrorData
from pydantic import ValidationError

from desktop_app.core.asks.context import NOT_ASKED, AskContext
from desktop_app.core.asks.form_schema import FormSchema, SchemaError, parse_form_schema
from desktop_app.core.asks.link_check import LinkCheck, check_link
from desktop_app.core.asks.question import Question

Action = Literal["accept", "decline", "cancel"]
URL_COMPLETION_WAIT_S: Final = 300.0
"""How long a call that needed a browser step waits for the server to say it is done (never forever)."""
MAX_URLS_REMEMBERED: Final = 32


@dataclass(frozen=True)
class ElicitReply:
    """The user's answer: an action, and for an accepted form its values."""

    action: Action
    content: dict[str, Any] | None = None


class UrlCompletion:
    """Set when the server reports that the web page's flow is done (`notifications/elicitation/complete`)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()


@dataclass(frozen=True, kw_only=True)
class FormQuestion(Question[ElicitReply]):
    """Fill in a form for a server."""

    message: str
    form: FormSchema

    def fallback(self) -> ElicitReply:
        return ElicitReply("cancel")


@dataclass(frozen=True, kw_only=True)
class UrlQuestion(Question[ElicitReply]):
    """Open a web page for a server (sign in, pay, enter something the server must not see in the chat)."""

    message: str
    url: str
    elicitation_id: str | None = None
    then_retry: bool = False
    """The server refused a tool call until this page is done: the call is tried again once it is."""
    completion: UrlCompletion = field(default_factory=UrlCompletion, compare=False, repr=False)
    """Set when the server reports the page's flow finished, or when the user says they are done."""

    @cached_property
    def link(self) -> LinkCheck:
        """The address as shown and opened (host in ASCII), and what about it should worry the user."""
        return check_link(self.url)

    @property
    def domain(self) -> str:
        return self.link.host

    def fallback(self) -> ElicitReply:
        return ElicitReply("cancel")


class Elicitation:
    """Answers one server's `elicitation/create` (both eras) and its "URL elicitation required" errors."""

    def __init__(self, context: AskContext) -> None:
        self._context = context
        self._urls: OrderedDict[str, UrlCompletion] = OrderedDict()
        self._finished: OrderedDict[str, None] = OrderedDict()
        """Flows the server finished before the user's answer reached it (a fast browser, a slow card)."""

    async def __call__(self, _request: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        if isinstance(params, ElicitRequestURLParams):
            result, _completion = await self._url(params)
            return result
        return await self._form(params.message, params.requested_schema)

    async def _form(self, message: str, schema: object) -> ElicitResult | ErrorData:
        context = self._context
        try:
            form = parse_form_schema(schema)
        except SchemaError as exc:
            return context.refuse("a form", str(exc), INVALID_PARAMS)
        reply = await context.ask(
            "a form", lambda call_id: FormQuestion(server=context.server, call_id=call_id, message=message, form=form)
        )
        if isinstance(reply, ErrorData):
            return reply
        if reply.action != "accept":
            context.note("info", f"form answered: {reply.action}")
            return ElicitResult(action=reply.action)
        content = dict(reply.content or {})
        problems = form.problems(content)
        if problems:
            detail = "; ".join(f"{name} {problem}" for name, problem in problems.items())
            return context.refuse("a form", f"the answer does not fit the form ({detail})", INVALID_PARAMS)
        context.note("info", f"form answered: accept ({len(content)} fields)")
        return ElicitResult(action="accept", content=content)

    async def _url(
        self, params: ElicitRequestURLParams, then_retry: bool = False
    ) -> tuple[ElicitResult | ErrorData, UrlCompletion]:
        context = self._context
        completion = UrlCompletion()
        link = check_link(params.url)
        if link.problem is not None:
            # Too long is a limit of ours, like a flood: "not asked". Anything else is a malformed address.
            code = NOT_ASKED if link.oversized else INVALID_PARAMS
            return context.refuse("a link", link.problem, code), completion
        reply = await context.ask(
            "a link",
            lambda call_id: UrlQuestion(
                server=context.server,
                call_id=call_id,
                message=params.message,
                url=params.url,
                elicitation_id=params.elicitation_id,
                then_retry=then_retry,
                completion=completion,
            ),
        )
        if isinstance(reply, ErrorData):
            return reply, completion
        context.note("info", f"link {link.short} answered: {reply.action}")
        if reply.action == "accept" and params.elicitation_id:
            if params.elicitation_id in self._finished:
                del self._finished[params.elicitation_id]
                completion.set()
            else:
                _remember(self._urls, params.elicitation_id, completion)
        return ElicitResult(action=reply.action), completion

    def completed(self, elicitation_id: str) -> None:
        """The server reports a URL elicitation done: whoever waits for it (a card, a retry) goes on."""
        completion = self._urls.pop(elicitation_id, None)
        if completion is None:
            _remember(self._finished, elicitation_id, None)
            self._context.note("info", f"the server reports the link flow {elicitation_id} complete (early)")
            return
        self._context.note("info", f"the server reports the link flow {elicitation_id} complete")
        completion.set()

    async def required(self, error: MCPError) -> bool:
        """A call failed with "URL elicitation required": True when the user did every step (retry it).

        A step is done when the server says so (`notifications/elicitation/complete`) or when the
        user says so (the card's "Done" button): servers are not obliged to send the notification.
        """
        try:
            steps = UrlElicitationRequiredError.from_error(error.error).elicitations
        except (ValueError, ValidationError, TypeError) as exc:
            self._context.note("warning", f"unreadable 'URL elicitation required' error: {exc}")
            return False
        waits: list[UrlCompletion] = []
        for step in steps:
            result, completion = await self._url(step, then_retry=True)
            if not isinstance(result, ElicitResult) or result.action != "accept":
                return False
            waits.append(completion)
        try:
            async with asyncio.timeout(URL_COMPLETION_WAIT_S):
                for completion in waits:
                    await completion.wait()
        except TimeoutError:
            self._context.note("warning", f"the browser step did not finish within {URL_COMPLETION_WAIT_S:g} s")
            return False
        return bool(steps)


def _remember(memory: OrderedDict[str, Any], key: str, value: Any) -> None:
    memory[key] = value
    while len(memory) > MAX_URLS_REMEMBERED:
        memory.popitem(last=False)
