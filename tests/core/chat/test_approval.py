"""The approval gate's parts: schema checks, persisted rules, repeated edits, headless approvers."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from desktop_app.core.chat.approval import (
    MAX_EDIT_ATTEMPTS,
    AlwaysAllowRules,
    ApprovalPolicy,
    ApprovalReply,
    ApprovalRequest,
    Decision,
    StaticApprover,
    validate_arguments,
)
from tests.llm_server import RecordingApprover

SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
    "required": ["text"],
}


def request(arguments: dict[str, object] | None = None) -> ApprovalRequest:
    return ApprovalRequest("c1", "fx", "echo", "fx__echo", "Echo", arguments or {"text": "x"}, SCHEMA)


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
    assert "ignoring unreadable approval rules" in caplog.text
    path.write_text(json.dumps({"always_allow": [{"server": "fx"}, {"server": "fx", "tool": "echo"}, "junk"]}))
    assert AlwaysAllowRules(path).rules() == [("fx", "echo")]


@pytest.mark.anyio
async def test_policy_gives_up_after_repeated_bad_edits() -> None:
    approver = RecordingApprover()
    approver.replies.extend(ApprovalReply(Decision.ALLOW_ONCE, {"count": 3}) for _ in range(MAX_EDIT_ATTEMPTS))
    verdict = await ApprovalPolicy(approver).decide("chat", request())
    assert not verdict.allowed and verdict.reason == "the edited arguments never matched the schema"
    assert len(approver.requests) == MAX_EDIT_ATTEMPTS
    assert approver.requests[-1].problem == (
        "The edited arguments do not match the tool's schema: 'text' is a required property"
    )


@pytest.mark.anyio
async def test_allow_always_without_rules_lasts_for_the_chat() -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.ALLOW_ALWAYS))
    policy = ApprovalPolicy(approver)
    assert (await policy.decide("a", request())).decision is Decision.ALLOW_ALWAYS
    second = await policy.decide("a", request({"text": "again"}))
    assert second.allowed and second.decision is None and second.arguments == {"text": "again"}
    assert policy.needs_user("b", "fx", "echo")
    policy.forget_chat("a")
    assert policy.needs_user("a", "fx", "echo")


@pytest.mark.anyio
async def test_static_approvers() -> None:
    denied = await ApprovalPolicy(StaticApprover(Decision.DENY)).decide("c", request())
    assert not denied.allowed and denied.reason == "the user declined"
    allowed = await ApprovalPolicy(StaticApprover(Decision.ALLOW_ONCE)).decide("c", request())
    assert allowed.allowed and allowed.arguments == {"text": "x"}
