"""`"sandbox": {"required": true}`: read with its line; a malformed value is the policy's usual problem and blocks
nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.policy.in_force import NO_POLICY
from tests.policy_files import put_policy


def test_required_is_read_with_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = put_policy(tmp_path, monkeypatch, {"sandbox": {"required": True}})
    required = policy.sandbox_required()
    assert required is not None and required.field == "sandbox.required" and required.line == 3
    assert str(required) == (
        "blocked by your organisation's policy: local servers run only in the sandbox (sandbox.required)"
    )
    assert NO_POLICY.sandbox_required() is None
    assert put_policy(tmp_path, monkeypatch, {"sandbox": {"required": False}}).sandbox_required() is None
    assert put_policy(tmp_path, monkeypatch, {"sandbox": {}}).sandbox_required() is None


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ({"sandbox": {"required": "yes"}}, "sandbox.required: must be true or false"),
        ({"sandbox": True}, "sandbox: must be an object"),
        ({"sandbox": {"requried": True}}, "sandbox.requried: is not a policy setting (known here: required)"),
    ],
)
def test_a_malformed_value_is_the_policys_problem_and_blocks_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, document: dict[str, object], said: str
) -> None:
    policy = put_policy(tmp_path, monkeypatch, {**document, "features": {"apps": False}})
    assert policy.problem is not None and said in policy.problem
    assert policy.sandbox_required() is None
    assert policy.feature_refusal("apps") is None  # a file that cannot be followed blocks nothing
