"""Every decision has a provenance, and the gate weighs it: the live user, a rule, this chat's allowance,
a flag, nobody; the organisation's policy binds them all but the live user.

Each provenance is played once without a policy and once under `approvals.everyCall`. Whoever answers
asks for everything (allow always, with edited arguments): what it gets is what its provenance may do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.chat.approval import (
    AlwaysAllowRules,
    ApprovalPolicy,
    ApprovalReply,
    ApprovalRequest,
    DecidedBy,
    Decision,
)
from desktop_app.core.trust import ServerTrust, ToolHints
from tests.llm_server import RecordingApprover
from tests.policy_files import put_policy

pytestmark = pytest.mark.anyio

MODEL_ARGUMENTS = {"text": "what the model asked"}
EDITED = {"text": "what the answer put instead"}
EVERY_CALL = (
    "blocked by your organisation's policy: every tool call needs your approval, each time (approvals.everyCall)"
)
READ_ONLY = {"hints": ToolHints(read_only=True), "trust": ServerTrust(trusted=True, auto_approve_read_only=True)}


def request(**fields: Any) -> ApprovalRequest:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    return ApprovalRequest(
        server="fx", call_id="c1", tool="echo", arguments=MODEL_ARGUMENTS, input_schema=schema, **fields
    )


def asked_for_everything(by: DecidedBy) -> RecordingApprover:
    """An asker whose every answer, given as `by`, is "allow always, with these arguments"."""
    approver = RecordingApprover()
    approver.replies.extend(ApprovalReply(Decision.ALLOW_ALWAYS, EDITED, by=by) for _ in range(3))
    return approver


def gate(provenance: str, tmp_path: Path) -> tuple[ApprovalPolicy, ApprovalRequest, RecordingApprover]:
    """The gate and the call for one provenance; answers that are asked for come as a flag would give them."""
    rules = AlwaysAllowRules(tmp_path / "approvals.json")
    answerer = {"user": DecidedBy.USER, "nobody": DecidedBy.NOBODY, "claims a rule": DecidedBy.RULE}
    approver = asked_for_everything(answerer.get(provenance, DecidedBy.FLAG))
    policy = ApprovalPolicy(approver, rules)
    call = request(**READ_ONLY) if provenance == "server rule" else request()
    if provenance == "rule":
        rules.add("fx", "echo", call.definition)
    elif provenance == "chat":
        policy._remember("c", call, Decision.ALLOW_CHAT)
    return policy, call, approver


# provenance -> (allowed, decided by, arguments that run, the next call runs unasked)
WITHOUT_POLICY: dict[str, tuple[bool, DecidedBy, dict[str, str], bool]] = {
    "user": (True, DecidedBy.USER, EDITED, True),  # the live user may edit and allow for good
    "rule": (True, DecidedBy.RULE, MODEL_ARGUMENTS, True),
    "server rule": (True, DecidedBy.SERVER_RULE, MODEL_ARGUMENTS, True),
    "chat": (True, DecidedBy.CHAT, MODEL_ARGUMENTS, True),
    "flag": (True, DecidedBy.FLAG, MODEL_ARGUMENTS, False),  # this call only, as the model made it
    "nobody": (False, DecidedBy.NOBODY, MODEL_ARGUMENTS, False),  # a yes from nobody is no answer
    "claims a rule": (False, DecidedBy.NOBODY, MODEL_ARGUMENTS, False),  # an asker is never a rule
}


@pytest.mark.parametrize("provenance", list(WITHOUT_POLICY))
async def test_each_provenance_decides_what_it_may(provenance: str, tmp_path: Path) -> None:
    policy, call, approver = gate(provenance, tmp_path)
    allowed, by, arguments, standing = WITHOUT_POLICY[provenance]
    verdict = await policy.decide("c", call)
    assert (verdict.allowed, verdict.decided_by, verdict.arguments) == (allowed, by, arguments)
    assert verdict.edited is (arguments == EDITED)
    assert (policy.assess("c", call).allowed_by is not None) is standing
    assert len(approver.requests) == (0 if provenance in ("rule", "server rule", "chat") else 1)


@pytest.mark.parametrize("provenance", list(WITHOUT_POLICY))
async def test_every_call_binds_every_provenance_but_the_live_user(
    provenance: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_policy(tmp_path, monkeypatch, {"approvals": {"everyCall": True}})
    policy, call, approver = gate(provenance, tmp_path)
    verdict = await policy.decide("c", call)
    assert len(approver.requests) == 1  # no rule or allowance answers: the call is put to whoever answers
    if provenance == "user":
        assert (verdict.allowed, verdict.decided_by, verdict.arguments) == (True, DecidedBy.USER, EDITED)
        assert policy.assess("c", call).allowed_by is None  # "always" counted for this call only
        return
    assert not verdict.allowed and verdict.arguments == MODEL_ARGUMENTS
    if verdict.decided_by is DecidedBy.FLAG:  # rule, chat, server rule, flag: a headless run answers
        assert verdict.reason == EVERY_CALL
    else:
        assert verdict.decided_by is DecidedBy.NOBODY


def test_a_reply_names_who_gave_it() -> None:
    with pytest.raises(TypeError):
        ApprovalReply(Decision.ALLOW_ONCE)  # type: ignore[call-arg]
