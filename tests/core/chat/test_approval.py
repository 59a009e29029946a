"""The approval gate's rules: trust, annotations, taint, edits, reasons, persisted rules, headless answers."""

from __future__ import annotations

import asyncio
import itertools
import json
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.chat.approval import (
    MAX_EDIT_ATTEMPTS,
    AlwaysAllowRules,
    ApprovalPolicy,
    ApprovalReply,
    ApprovalRequest,
    DecidedBy,
    Decision,
    Requester,
    StaticApprover,
    Verdict,
    denial_message,
    validate_arguments,
)
from desktop_app.core.trust import (
    ServerTrust,
    ToolHints,
    prompt_taint,
    resource_taint,
    tool_result_taint,
)
from tests.llm_server import RecordingApprover

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
    "required": ["text"],
}
READ_ONLY = ToolHints(read_only=True, open_world=False)
DESTRUCTIVE = ToolHints(read_only=False, destructive=True)
TRUSTED = ServerTrust(trusted=True)
TRUSTED_AUTO = ServerTrust(trusted=True, auto_approve_read_only=True)
UNTRUSTED_AUTO = ServerTrust(trusted=False, auto_approve_read_only=True)  # a stale setting: must not count
TAINT = "read fixture://injected from fx, a server you have not marked as trusted"


def request(arguments: dict[str, Any] | None = None, **fields: Any) -> ApprovalRequest:
    base: dict[str, Any] = {
        "server": "fx",
        "call_id": "c1",
        "tool": "echo",
        "exposed_name": "fx__echo",
        "description": "Echo",
        "arguments": arguments or {"text": "x"},
        "input_schema": SCHEMA,
    }
    return ApprovalRequest(**{**base, **fields})


def policy_with(rule: str, tmp_path: Path, approver: RecordingApprover | None = None) -> ApprovalPolicy:
    """A policy where (fx, echo) is covered by `rule`: "none", "always" or "chat" (in chat "c")."""
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    policy = ApprovalPolicy(approver or RecordingApprover(), rules)
    if rule == "always":
        rules.add("fx", "echo")
    elif rule == "chat":
        policy._remember("c", request(), Decision.ALLOW_CHAT)
    return policy


# -- which calls are asked: explicit cases ------------------------------------------------------

# (trust, hints, rule, taint) -> (allowed without asking by, rule paused)
CASES: list[tuple[str, ServerTrust, ToolHints, str, str | None, DecidedBy | None, bool]] = [
    ("no rule asks", TRUSTED, ToolHints(), "none", None, None, False),
    ("always rule allows", ServerTrust(), ToolHints(), "always", None, DecidedBy.RULE, False),
    ("chat allowance allows", ServerTrust(), ToolHints(), "chat", None, DecidedBy.CHAT, False),
    ("trusted read-only with auto runs", TRUSTED_AUTO, READ_ONLY, "none", None, DecidedBy.SERVER_RULE, False),
    ("trusted read-only without auto asks", TRUSTED, READ_ONLY, "none", None, None, False),
    ("untrusted read-only claim is not believed", UNTRUSTED_AUTO, READ_ONLY, "none", None, None, False),
    ("auto does not cover tools that are not read-only", TRUSTED_AUTO, ToolHints(), "none", None, None, False),
    ("auto does not cover destructive tools", TRUSTED_AUTO, DESTRUCTIVE, "none", None, None, False),
    ("taint pauses an always rule", TRUSTED, ToolHints(), "always", TAINT, None, True),
    ("taint pauses a chat allowance", TRUSTED, ToolHints(), "chat", TAINT, None, True),
    ("taint pauses rules for untrusted read-only claims", ServerTrust(), READ_ONLY, "always", TAINT, None, True),
    ("taint spares trusted read-only tools (rule)", TRUSTED, READ_ONLY, "always", TAINT, DecidedBy.RULE, False),
    ("taint spares trusted read-only tools (chat)", TRUSTED, READ_ONLY, "chat", TAINT, DecidedBy.CHAT, False),
    ("taint spares the server read-only rule", TRUSTED_AUTO, READ_ONLY, "none", TAINT, DecidedBy.SERVER_RULE, False),
    ("taint with no rule just asks", TRUSTED, DESTRUCTIVE, "none", TAINT, None, False),
    ("taint pauses a rule for a destructive tool", TRUSTED, DESTRUCTIVE, "always", TAINT, None, True),
]


@pytest.mark.parametrize(
    ("trust", "hints", "rule", "taint", "allowed_by", "paused"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
async def test_which_calls_are_asked(
    tmp_path: Path,
    trust: ServerTrust,
    hints: ToolHints,
    rule: str,
    taint: str | None,
    allowed_by: DecidedBy | None,
    paused: bool,
) -> None:
    approver = RecordingApprover()
    policy = policy_with(rule, tmp_path, approver)
    asked = request(hints=hints, trust=trust, taint=taint)
    assessment = policy.assess("c", asked)
    assert (assessment.allowed_by, assessment.rule_paused) == (allowed_by, paused)
    verdict = await policy.decide("c", asked)
    assert verdict.allowed
    assert verdict.decided_by is (allowed_by or DecidedBy.USER)
    assert verdict.rule_paused is paused
    assert len(approver.requests) == (0 if allowed_by else 1)
    if approver.requests:
        assert approver.requests[0].rule_paused is paused  # the card can say why it asks again
    # The taint is reported only where it was in force: a tool that is not (trusted) read-only.
    assert verdict.taint == (taint if taint and not (trust.trusted and hints.read_only) else None)


# -- which calls are asked: invariants over every combination ------------------------------------

TRUSTS = [ServerTrust(), TRUSTED, TRUSTED_AUTO, UNTRUSTED_AUTO]
HINTS = [ToolHints(), READ_ONLY, DESTRUCTIVE, ToolHints(read_only=True, destructive=True)]
RULES = ["none", "always", "chat"]
TAINTS = [None, TAINT]


@pytest.mark.parametrize(("trust", "hints", "rule"), list(itertools.product(TRUSTS, HINTS, RULES)))
def test_rule_invariants(tmp_path: Path, trust: ServerTrust, hints: ToolHints, rule: str) -> None:
    policy = policy_with(rule, tmp_path)
    clean = policy.assess("c", request(hints=hints, trust=trust))
    tainted = policy.assess("c", request(hints=hints, trust=trust, taint=TAINT))
    read_only = trust.trusted and hints.read_only is True
    # Taint never lets more through, and stops everything that is not read-only.
    if clean.allowed_by is None:
        assert tainted.allowed_by is None
    if not read_only:
        assert tainted.allowed_by is None
    else:
        assert tainted == clean
    # Without a rule or the trusted read-only setting, every call is asked.
    if rule == "none" and not (read_only and trust.auto_approve_read_only):
        assert clean.allowed_by is None
    # An untrusted server's claims change nothing: it is treated as if it said nothing.
    if not trust.trusted:
        for taint in TAINTS:
            bare = policy.assess("c", request(trust=trust, taint=taint))
            assert policy.assess("c", request(hints=hints, trust=trust, taint=taint)) == bare
    # Another chat never inherits this chat's allowance.
    if rule == "chat":
        assert policy.assess("other", request(hints=hints, trust=trust)).allowed_by in (None, DecidedBy.SERVER_RULE)


# -- answers: edits, reasons, remembering --------------------------------------------------------


async def test_edited_arguments_are_checked_and_the_edit_is_reported() -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        [
            ApprovalReply(Decision.ALLOW_ONCE, {"text": 3}, by=DecidedBy.USER),
            ApprovalReply(Decision.ALLOW_ONCE, {"text": "edited"}, by=DecidedBy.USER),
        ]
    )
    verdict = await ApprovalPolicy(approver).decide("c", request())
    assert verdict.allowed and verdict.edited and verdict.arguments == {"text": "edited"}
    first, second = approver.requests
    assert first.problem is None
    assert second.problem == "The edited arguments do not match the tool's schema: text: 3 is not of type 'string'"
    assert second.arguments == {"text": 3}  # the user sees their own edit again, not the model's
    unchanged = ApprovalReply(Decision.ALLOW_ONCE, {"text": "x"}, by=DecidedBy.USER)
    approver.replies.append(unchanged)
    assert not (await ApprovalPolicy(approver).decide("c", request())).edited


async def test_policy_gives_up_after_repeated_bad_edits() -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        ApprovalReply(Decision.ALLOW_ONCE, {"count": 3}, by=DecidedBy.USER) for _ in range(MAX_EDIT_ATTEMPTS)
    )
    verdict = await ApprovalPolicy(approver).decide("chat", request())
    assert not verdict.allowed and verdict.invalid_edits
    assert len(approver.requests) == MAX_EDIT_ATTEMPTS
    assert approver.requests[-1].problem == (
        "The edited arguments do not match the tool's schema: 'text' is a required property"
    )
    assert denial_message("fx__echo", verdict) == (
        "The user's edited arguments never matched the input schema, so 'fx__echo' was not called."
    )


async def test_denial_with_and_without_a_reason() -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        [
            ApprovalReply(Decision.DENY, reason="  use the staging server instead  ", by=DecidedBy.USER),
            ApprovalReply(Decision.DENY, by=DecidedBy.USER),
        ]
    )
    policy = ApprovalPolicy(approver)
    with_reason = await policy.decide("c", request())
    assert not with_reason.allowed and with_reason.reason == "use the staging server instead"
    assert with_reason.decided_by is DecidedBy.USER and with_reason.decision is Decision.DENY
    assert denial_message("fx__echo", with_reason) == (
        "The user declined: use the staging server instead\n(The tool 'fx__echo' was not called.)"
    )
    plain = await policy.decide("c", request())
    message = denial_message("fx__echo", plain)
    assert message == "The user declined to run 'fx__echo'; it was not called."
    assert message.lower().count("declined") == 1


async def test_no_answer_in_time_denies() -> None:
    async def never(_question: Any) -> Any:
        await asyncio.sleep(3600)

    class Silent:
        async def ask(self, question: Any) -> Any:
            return await never(question)

    verdict = await ApprovalPolicy(Silent()).decide("c", request(timeout=0.05))
    assert not verdict.allowed and verdict.decided_by is DecidedBy.NOBODY
    assert (
        denial_message("fx__echo", verdict)
        == "Nobody answered the request to run 'fx__echo' in time, so it was not called."
    )


async def test_allow_for_this_chat_and_always(tmp_path: Path) -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        [ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER), ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER)]
    )
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    policy = ApprovalPolicy(approver, rules)
    await policy.decide("a", request())
    assert policy.assess("a", request()).allowed_by is DecidedBy.CHAT
    assert policy.assess("b", request()).allowed_by is None
    # Taint arrives in chat "a": the allowance pauses, the user is asked again and the card says why.
    again = await policy.decide("a", request(taint=TAINT))
    assert again.rule_paused and approver.requests[-1].rule_paused and approver.requests[-1].under_taint
    assert again.decided_by is DecidedBy.USER and again.decision is Decision.ALLOW_ALWAYS
    assert rules.allows("fx", "echo") and AlwaysAllowRules(rules.path).allows("fx", "echo")
    assert policy.assess("b", request()).allowed_by is DecidedBy.RULE
    policy.forget_chat("a")
    rules.revoke("fx", "echo")
    assert policy.assess("a", request()).allowed_by is None


async def test_allow_always_without_rules_lasts_for_the_chat() -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER))
    policy = ApprovalPolicy(approver)
    assert (await policy.decide("a", request())).decision is Decision.ALLOW_ALWAYS
    second = await policy.decide("a", request({"text": "again"}))
    assert second.allowed and second.decided_by is DecidedBy.CHAT and second.arguments == {"text": "again"}
    assert policy.assess("b", request()).allowed_by is None


async def test_static_approvers_answer_as_the_flag() -> None:
    denied = await ApprovalPolicy(StaticApprover(Decision.DENY)).decide("c", request())
    assert not denied.allowed and denied.decided_by is DecidedBy.FLAG
    assert denial_message("fx__echo", denied) == "The user declined to run 'fx__echo'; it was not called."
    allowed = await ApprovalPolicy(StaticApprover(Decision.ALLOW_ONCE)).decide("c", request(taint=TAINT))
    assert allowed.allowed and allowed.decided_by is DecidedBy.FLAG and allowed.taint == TAINT


async def test_an_app_view_asks_through_the_same_gate(tmp_path: Path) -> None:
    approver = RecordingApprover()
    policy = policy_with("always", tmp_path, approver)
    from_app = request(requester=Requester.APP, call_id=None)
    assert (await policy.decide("c", from_app)).decided_by is DecidedBy.RULE
    await policy.decide("c", replace(from_app, taint=TAINT))
    assert approver.requests[-1].requester is Requester.APP and approver.requests[-1].rule_paused


def test_request_for_a_catalog_tool() -> None:
    from mcp_types import Tool, ToolAnnotations

    from desktop_app.core.catalog import CatalogTool

    tool = Tool(
        name="delete_file",
        description="Delete a file",
        input_schema=SCHEMA,
        annotations=ToolAnnotations(title="Delete a file", destructive_hint=True, read_only_hint=False),
    )
    built = ApprovalRequest.for_tool(CatalogTool("fx__delete_file", "fx", tool), {"text": "a"}, call_id="c9")
    assert (built.server, built.tool, built.exposed_name, built.title) == (
        "fx",
        "delete_file",
        "fx__delete_file",
        "Delete a file",
    )
    assert built.hints.claims_destructive and built.hints.claims() == ["destructive"]
    assert not built.read_only and built.requester is Requester.MODEL
    assert built.fallback() == ApprovalReply(Decision.DENY, by=DecidedBy.NOBODY)


def test_taint_sources() -> None:
    assert resource_taint("fx", "fixture://x", ServerTrust()) is not None
    assert resource_taint("fx", "fixture://x", TRUSTED) is None
    assert prompt_taint("fx", "greet", ServerTrust()) is not None
    assert prompt_taint("fx", "greet", TRUSTED) is None
    assert tool_result_taint("fx", "echo", READ_ONLY, ServerTrust()) is not None  # untrusted: always
    assert tool_result_taint("fx", "echo", READ_ONLY, TRUSTED) is None  # says closed world
    assert "open world" in (tool_result_taint("fx", "fetch", ToolHints(), TRUSTED) or "")  # unannotated: open
    assert tool_result_taint("fx", "fetch", ToolHints(open_world=True), TRUSTED) is not None


def test_claims_in_words() -> None:
    assert ToolHints().claims() == []
    assert ToolHints(read_only=True, destructive=True, idempotent=True, open_world=False).claims() == [
        "read-only",
        "idempotent",
        "closed world",
    ]
    assert ToolHints(read_only=False, destructive=False, open_world=True).claims() == ["additive", "open world"]


def test_verdict_defaults() -> None:
    verdict = Verdict(True, {}, DecidedBy.RULE)
    assert not verdict.edited and verdict.taint is None and verdict.reason == ""


def test_validate_arguments() -> None:
    assert validate_arguments(SCHEMA, {"text": "ok", "count": 2}) is None
    assert validate_arguments(SCHEMA, {}) == "'text' is a required property"
    assert validate_arguments(SCHEMA, {"text": "ok", "count": 0}) == "count: 0 is less than the minimum of 1"
    assert validate_arguments(SCHEMA, ["text"]) == "the arguments must be a JSON object"
    assert validate_arguments({"type": "bogus"}, {"a": 1}) is None  # a broken schema cannot block the user


def test_rules_persist_and_revoke(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "approvals.json"
    rules = AlwaysAllowRules(path)
    rules.add("fx", "echo")
    rules.add("web", "search")
    assert AlwaysAllowRules(path).rules() == [("fx", "echo"), ("web", "search")]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    rules.revoke("fx", "echo")
    assert not AlwaysAllowRules(path).allows("fx", "echo")
    assert AlwaysAllowRules(path).allows("web", "search")


def test_unreadable_rules_allow_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "approvals.json"
    path.write_text("{not json")
    assert AlwaysAllowRules(path).rules() == []
    assert "approvals.json could not be read" in caplog.text and "is kept as" in caplog.text
    path.write_text(json.dumps({"always_allow": [{"server": "fx"}, {"server": "fx", "tool": "echo"}, "junk"]}))
    assert AlwaysAllowRules(path).rules() == [("fx", "echo")]
