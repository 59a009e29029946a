"""The approval gate under the organisation's policy: every call asked, or no standing permission."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.chat.approval import (
    AlwaysAllowRules,
    ApprovalPolicy,
    ApprovalReply,
    ApprovalRequest,
    DecidedBy,
    Decision,
    StaticApprover,
)
from desktop_app.core.trust import ServerTrust, ToolHints
from tests.llm_server import RecordingApprover
from tests.policy_files import put_policy

pytestmark = pytest.mark.anyio

EVERY_CALL = (
    "blocked by your organisation's policy: every tool call needs your approval, each time (approvals.everyCall)"
)
NO_STANDING = (
    'blocked by your organisation\'s policy: "Always allow" is switched off and rules saved earlier are not applied'
    " (features.alwaysAllow)"
)


def request(tool: str = "echo", **fields: object) -> ApprovalRequest:
    return ApprovalRequest(server="fx", call_id="c1", tool=tool, arguments={"text": "x"}, **fields)  # type: ignore[arg-type]


READ_ONLY = {"hints": ToolHints(read_only=True), "trust": ServerTrust(trusted=True, auto_approve_read_only=True)}


async def test_every_call_is_asked_whatever_was_allowed_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    approver = RecordingApprover()
    before = ApprovalPolicy(approver, rules)  # no policy yet: the user allows, for the chat and always
    approver.replies.extend(
        [ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER), ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER)]
    )
    await before.decide("c", request("echo"))
    await before.decide("c", request("add"))
    assert rules.allows("fx", "echo")

    put_policy(tmp_path, monkeypatch, {"approvals": {"everyCall": True}})
    policy = ApprovalPolicy(approver, rules)  # the policy in force, unasked
    policy._chat = before._chat
    approver.requests.clear()
    for asked in (request("echo"), request("add"), request("list", **READ_ONLY)):
        verdict = await policy.decide("c", asked)
        assert verdict.allowed and verdict.decided_by is DecidedBy.USER
    assert [r.tool for r in approver.requests] == ["echo", "add", "list"]
    assert approver.requests[0].refused == {Decision.ALLOW_CHAT: EVERY_CALL, Decision.ALLOW_ALWAYS: EVERY_CALL}

    # "Always" or "this chat" from a card that offered them anyway counts for this call only.
    approver.replies.append(ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER))
    assert (await policy.decide("c", request("new"))).allowed
    assert not rules.allows("fx", "new")
    approver.requests.clear()
    await policy.decide("c", request("new"))
    assert len(approver.requests) == 1  # asked again

    # `--approve allow` answers before anything is shown: not an approval under this rule.
    flagged = ApprovalPolicy(StaticApprover(Decision.ALLOW_ONCE), rules, managed=policy.managed)
    verdict = await flagged.decide("c", request("echo"))
    assert not verdict.allowed and verdict.reason == EVERY_CALL and verdict.decided_by is DecidedBy.FLAG
    assert not (
        await ApprovalPolicy(StaticApprover(Decision.DENY), rules, managed=policy.managed).decide("c", request("echo"))
    ).allowed


async def test_without_always_allow_no_standing_permission_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    rules.add("fx", "echo")
    put_policy(tmp_path, monkeypatch, {"features": {"alwaysAllow": False}})
    approver = RecordingApprover()
    policy = ApprovalPolicy(approver, rules)
    assert policy.assess("c", request("echo")).allowed_by is None  # the saved rule is kept, not applied
    assert policy.assess("c", request("list", **READ_ONLY)).allowed_by is None
    approver.replies.append(ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER))
    assert (await policy.decide("c", request("add"))).allowed
    assert approver.requests[0].refused == {Decision.ALLOW_ALWAYS: NO_STANDING}
    assert not rules.allows("fx", "add") and rules.rules() == [("fx", "echo")]
    # Allowing for this chat stays: it is not a standing permission.
    approver.replies.append(ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER))
    await policy.decide("c", request("add"))
    assert policy.assess("c", request("add")).allowed_by is DecidedBy.CHAT
    assert (await ApprovalPolicy(StaticApprover(Decision.ALLOW_ONCE), rules).decide("c", request("x"))).allowed
