"""The gate every server tool call passes: the user's rules, this chat's allowances, else the user.

The core never opens a dialog: a call that needs the user becomes an `ApprovalRequest`, a
`Question` of the ask family, awaited through an `Asker` (the window renders it inside the
call's tool card, the command line asks on the terminal or answers from `--approve`, tests
script it). The user may edit the arguments; edits are checked against the tool's schema.

Which calls are asked (see `ApprovalPolicy.assess`):
- a trusted server's read-only tools run without asking when the user turned that on for it;
- a tool the user always allows, or allowed for this chat, runs without asking, unless the
  conversation is tainted (untrusted content arrived, see `trust.py`) and the tool is not
  read-only: then every such call is asked again;
- a rule or allowance holds only for the definition the tool had when the user gave it (see
  `tool_definition.py`): once the server changes the tool's title, description, input schema or
  annotations, the call is asked again, and the question says what changed;
- everything else is asked.

Callers other than the model (an MCP App view calling its server's tools) use the same gate
with `requester=Requester.APP`; the rules are the same, the card says who asks.

Every decision has a provenance (`DecidedBy`): the live user (a click or a key, now), one of their
rules, this chat's allowance, a command-line flag, or nobody. The asker that answers says who it is
(`ApprovalReply.by` has no default): the window's card and the terminal prompt are the live user,
`--approve allow|deny` is a flag, a fallback is nobody. Nothing read from a file is ever the user.
What an answer counts for, by who gave it, is decided in `ApprovalPolicy._weighed` and nowhere else:
only the live user edits the arguments or allows for longer than this call; a flag allows this call
with the model's own arguments; any other answer is nobody's and denies.

The organisation's policy (`core/policy`) comes first and binds every provenance but the live user:
with `approvals.everyCall` every call is put to the live user (no rule, allowance, flag or anything
else answers it); with `features.alwaysAllow` off no standing permission applies (saved rules, a
trusted server's read-only tools) and none is offered. The request says which answers the policy
takes away (`refused`), so the card greys them with why.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final, TypeVar, cast

from desktop_app.core.asks.question import Asker, Question, ask_user
from desktop_app.core.catalog import CatalogTool
from desktop_app.core.chat.approval_rules import RULES_FILENAME as RULES_FILENAME
from desktop_app.core.chat.approval_rules import AlwaysAllowRules as AlwaysAllowRules
from desktop_app.core.chat.approval_rules import Pin
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.tool_changes import ToolChange
from desktop_app.core.tool_definition import ToolDefinition
from desktop_app.core.trust import NO_HINTS, UNTRUSTED, ServerTrust, ToolHints, is_read_only

log = logging.getLogger(__name__)

R = TypeVar("R")

MAX_EDIT_ATTEMPTS: Final = 5


class Decision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_CHAT = "allow_chat"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"


class DecidedBy(StrEnum):
    """Who settled a call: the live user, one of their rules, a command-line flag, or nobody (no answer)."""

    USER = "user"
    """The live user, now: a click on the card in the window, a key at the terminal prompt."""
    RULE = "rule"
    """The user's "always allow" rule for this tool."""
    SERVER_RULE = "server_rule"
    """The user's "read-only tools of this trusted server run without asking"."""
    CHAT = "chat"
    """The user allowed this tool for this chat earlier."""
    FLAG = "flag"
    """`mcp-desk run|replay --approve allow|deny`: answers this call only, with the model's arguments."""
    NOBODY = "nobody"
    """The question timed out or could not be asked, or whoever answered may not: the call is denied."""


class Requester(StrEnum):
    """Who wants the call: the model, or an MCP App view acting on the user's clicks."""

    MODEL = "model"
    APP = "app"


@dataclass(frozen=True)
class ApprovalReply:
    """The answer: `arguments` replaces the proposed ones when edited; `reason` goes to the model on a denial.

    `by` is who answers, said by the asker that gives the reply (there is no default, so no asker can
    claim to be the user by forgetting it); the gate weighs the reply by it (`ApprovalPolicy.decide`).
    """

    decision: Decision
    arguments: dict[str, Any] | None = None
    reason: str = ""
    by: DecidedBy = field(kw_only=True)


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest(Question[ApprovalReply]):
    """A server tool call waiting for the user (the question's `server` and `call_id` say which)."""

    tool: str
    exposed_name: str = ""
    title: str | None = None
    description: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    input_schema: dict[str, Any] = field(default_factory=dict)
    annotations: Mapping[str, Any] = field(default_factory=dict)
    """The tool's annotations as the server sent them (`hints` are the ones that matter to the policy)."""
    hints: ToolHints = NO_HINTS
    trust: ServerTrust = UNTRUSTED
    taint: str | None = None
    """Why the conversation is tainted, if it is (the first reason)."""
    requester: Requester = Requester.MODEL
    app: str | None = None
    """The `ui://` resource of the view that asks, when an app asks."""
    rule_paused: bool = False
    """Set by the policy: a rule would have allowed this call, but the conversation is tainted."""
    problem: str | None = None
    """Why a previous edit was refused."""
    change: ToolChange | None = None
    """Set by the policy: the user allowed this tool, but its definition has changed since."""
    refused: Mapping[Decision, str] = field(default_factory=dict)
    """Answers the organisation's policy takes away, each with the words that say why."""

    @classmethod
    def for_tool(
        cls,
        target: CatalogTool,
        arguments: dict[str, Any],
        *,
        call_id: str | None = None,
        trust: ServerTrust = UNTRUSTED,
        taint: str | None = None,
        requester: Requester = Requester.MODEL,
        app: str | None = None,
    ) -> ApprovalRequest:
        """The request for calling `target` with `arguments`, with everything the card shows."""
        tool = target.tool
        definition = ToolDefinition.of(tool)
        return cls(
            server=target.server,
            call_id=call_id,
            tool=tool.name,
            exposed_name=target.exposed_name,
            title=definition.title,
            description=definition.description,
            arguments=arguments,
            input_schema=dict(definition.input_schema),
            annotations=definition.annotations,
            hints=ToolHints.of(tool),
            trust=trust,
            taint=taint,
            requester=requester,
            app=app,
        )

    @functools.cached_property
    def definition(self) -> ToolDefinition:
        """What the user's rules for this tool are pinned to."""
        return ToolDefinition(self.title, self.description, self.input_schema, self.annotations)

    @property
    def read_only(self) -> bool:
        """Read-only as the policy counts it: declared so by a trusted server."""
        return is_read_only(self.hints, self.trust)

    @property
    def under_taint(self) -> bool:
        """The conversation is tainted and this tool is not read-only: rules do not apply to it."""
        return self.taint is not None and not self.read_only

    def fallback(self) -> ApprovalReply:
        return ApprovalReply(Decision.DENY, by=DecidedBy.NOBODY)


@dataclass(frozen=True)
class StaticApprover:
    """Gives the same answer to every approval request (headless runs: `--approve deny|allow`)."""

    decision: Decision

    async def ask(self, question: Question[R]) -> R:
        if isinstance(question, ApprovalRequest):
            return cast(R, ApprovalReply(self.decision, by=DecidedBy.FLAG))
        return question.fallback()


def preload_validation() -> None:
    """Import the schema checker and check once (call it from a worker thread): its first use at an
    approval would otherwise hold the window for 0.1-0.3 s."""
    validate_arguments({"type": "object", "properties": {"x": {"type": "string"}}}, {"x": "ok"})


def validate_arguments(schema: dict[str, Any], arguments: Any) -> str | None:
    """None when `arguments` satisfy the tool's input schema, else a one-line reason."""
    if not isinstance(arguments, dict):
        return "the arguments must be a JSON object"
    import jsonschema  # type: ignore[import-untyped]  # here, not at start-up: its import costs 0.3-1 s

    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator_class.check_schema(schema)
        error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(arguments))
    except Exception as exc:  # a broken server schema (bad keyword, unresolvable $ref) must not block the user
        log.warning("tool schema is unusable, arguments not checked: %s", str(exc).splitlines()[0])
        return None
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


@dataclass(frozen=True)
class Assessment:
    """Whether a call may run without asking and, when a rule exists but does not apply, why not."""

    allowed_by: DecidedBy | None
    """The rule that lets the call through; None when the user must be asked."""
    rule_paused: bool = False
    """A rule would have let it through, but the conversation is tainted and the tool is not read-only."""
    changed: ToolChange | None = None
    """A rule or allowance exists, but for a different definition of the tool: how it changed."""


@dataclass(frozen=True)
class Verdict:
    """The outcome for one call: whether it may run, with which arguments, and how it was decided."""

    allowed: bool
    arguments: dict[str, Any]
    decided_by: DecidedBy
    decision: Decision | None = None
    """The user's (or the flag's) answer; None when a rule let the call through."""
    reason: str = ""
    """On a denial: the user's own words for the model, if any."""
    edited: bool = False
    rule_paused: bool = False
    taint: str | None = None
    """The conversation's taint when it was in force for this call (the tool is not read-only)."""
    invalid_edits: bool = False
    """Denied because the edited arguments never matched the schema."""


@dataclass
class ApprovalPolicy:
    """Decides each server tool call: rules and this chat's allowances, else the `asker` (the user)."""

    asker: Asker
    rules: AlwaysAllowRules | None = None
    _chat: dict[str, dict[tuple[str, str], Pin]] = field(default_factory=dict)
    managed: PolicyInForce = field(default_factory=policy_in_force)
    """The organisation's policy in force (by default the file's)."""

    def refused_answers(self) -> dict[Decision, str]:
        """The answers the organisation's policy takes away, with its words."""
        refused: dict[Decision, str] = {}
        if (every_call := self.managed.every_call()) is not None:
            refused[Decision.ALLOW_CHAT] = refused[Decision.ALLOW_ALWAYS] = str(every_call)
        elif (no_standing := self.managed.feature_refusal("alwaysAllow")) is not None:
            refused[Decision.ALLOW_ALWAYS] = str(no_standing)
        return refused

    def assess(self, chat: str, request: ApprovalRequest) -> Assessment:
        """What the rules say about `request` in `chat`, without asking anyone."""
        if self.managed.every_call() is not None:
            return Assessment(None)
        key = (request.server, request.tool)
        standing = self.managed.feature_refusal("alwaysAllow") is None
        if standing and request.read_only and request.trust.auto_approve_read_only:
            return Assessment(DecidedBy.SERVER_RULE)
        pins = (
            (DecidedBy.RULE, None if self.rules is None or not standing else self.rules.pin(*key)),
            (DecidedBy.CHAT, self._chat.get(chat, {}).get(key)),
        )
        rule: DecidedBy | None = None
        changed: ToolChange | None = None
        for by, pin in pins:
            if pin is None:
                continue
            if pin.holds_for(request.definition):
                rule = by
                break
            changed = changed or pin.change_to(request.definition)
        if rule is None:
            return Assessment(None, changed=changed)
        if request.under_taint:
            return Assessment(None, rule_paused=True)
        return Assessment(rule)

    def forget_chat(self, chat: str) -> None:
        self._chat.pop(chat, None)

    async def decide(self, chat: str, request: ApprovalRequest) -> Verdict:
        """Let the call through by rule, or ask (again after a refused edit) until the user settles it."""
        taint = request.taint if request.under_taint else None
        if self.rules is not None:  # a rule saved before rules were pinned: this is its first use
            self.rules.pin_unpinned(request.server, request.tool, request.definition)
        assessment = self.assess(chat, request)
        if assessment.allowed_by is not None:
            return Verdict(True, request.arguments, assessment.allowed_by, taint=taint)
        paused = assessment.rule_paused
        refused = self.refused_answers()
        pending = replace(request, rule_paused=paused, change=assessment.changed, refused=refused)
        for _ in range(MAX_EDIT_ATTEMPTS):
            reply = self._weighed(await ask_user(self.asker, pending))
            if reply.decision in refused:
                reply = replace(reply, decision=Decision.ALLOW_ONCE)  # what is left of it: this call only
            if reply.decision is Decision.DENY:
                return Verdict(
                    False, request.arguments, reply.by, Decision.DENY, reply.reason.strip(), False, paused, taint
                )
            arguments = request.arguments if reply.arguments is None else reply.arguments
            problem = validate_arguments(request.input_schema, arguments) if reply.arguments is not None else None
            if problem is not None:
                problem = f"The edited arguments do not match the tool's schema: {problem}"
                pending = replace(pending, arguments=arguments, problem=problem)
                continue
            self._remember(chat, request, reply.decision)
            edited = arguments != request.arguments
            return Verdict(True, arguments, reply.by, reply.decision, "", edited, paused, taint)
        return Verdict(
            False, request.arguments, DecidedBy.USER, Decision.DENY, "", False, paused, taint, invalid_edits=True
        )

    def _weighed(self, reply: ApprovalReply) -> ApprovalReply:
        """The answer as far as who gave it may decide: the one place provenance counts.

        The live user's stands as given. A flag's yes allows this call only, with the model's own
        arguments, and not under `approvals.everyCall` (`--approve allow` answers before anything is
        shown). Anyone else's answer (nobody's, or one claiming to be a rule) is nobody's: a denial.
        """
        if reply.by is DecidedBy.USER:
            return reply
        if reply.by is not DecidedBy.FLAG:
            return ApprovalReply(Decision.DENY, by=DecidedBy.NOBODY)
        if reply.decision is Decision.DENY:
            return ApprovalReply(Decision.DENY, by=DecidedBy.FLAG)
        if (every_call := self.managed.every_call()) is not None:
            return ApprovalReply(Decision.DENY, reason=str(every_call), by=DecidedBy.FLAG)
        return ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.FLAG)

    def _remember(self, chat: str, request: ApprovalRequest, decision: Decision) -> None:
        """Keep an allowance for the tool as the user saw it (a changed tool's allowance is re-pinned)."""
        key = (request.server, request.tool)
        if decision is Decision.ALLOW_ALWAYS and self.rules is not None:
            self.rules.add(*key, request.definition)
        elif decision in (Decision.ALLOW_CHAT, Decision.ALLOW_ALWAYS):
            self._chat.setdefault(chat, {})[key] = Pin.to(request.definition)


def denial_message(name: str, verdict: Verdict) -> str:
    """What the model reads when a call was not allowed: the user's reason in their words, said once."""
    if verdict.invalid_edits:
        return f"The user's edited arguments never matched the input schema, so '{name}' was not called."
    if verdict.decided_by is DecidedBy.NOBODY:
        return f"Nobody answered the request to run '{name}' in time, so it was not called."
    if verdict.reason:
        return f"The user declined: {verdict.reason}\n(The tool '{name}' was not called.)"
    return f"The user declined to run '{name}'; it was not called."
