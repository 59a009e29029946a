"""Policy files for tests: written to the test's folder and put in force with `MCP_DESK_POLICY_FILE`
(policy.json) or `MCP_DESK_MANAGED_MCP_FILE` (managed-mcp.json, the converged shape)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.policy.location import ENV_VAR, MANAGED_MCP_ENV_VAR, MANAGED_MCP_FILENAME

ISSUE_SHAPE: dict[str, Any] = {
    "servers": {
        "allow": [
            {"registry": "io.github.acme/*"},
            {"url": "https://mcp.acme.example"},
            {"command": "npx", "args": ["-y", "@acme/*"]},
        ]
    },
    "registry": "https://registry.acme.example",
    "features": {"bundles": False, "apps": False, "sampling": False, "alwaysAllow": False},
    "approvals": {"everyCall": True},
}
"""The shape the feature was asked for, key for key."""


def put_policy(folder: Path, monkeypatch: pytest.MonkeyPatch, document: dict[str, Any] | str) -> PolicyInForce:
    """Write `document` as `folder/policy.json`, make it the policy in force, and return it as read."""
    path = folder / "policy.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2), encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(path))
    policy = policy_in_force()
    assert policy.source == path or policy.problem is not None
    return policy


def put_managed_mcp(folder: Path, monkeypatch: pytest.MonkeyPatch, document: dict[str, Any] | str) -> PolicyInForce:
    """Write `document` as `folder/managed-mcp.json`, put it in force beside any policy.json, and return the
    policy as read."""
    path = folder / MANAGED_MCP_FILENAME
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2), encoding="utf-8")
    monkeypatch.setenv(MANAGED_MCP_ENV_VAR, str(path))
    policy = policy_in_force()
    assert policy.managed_mcp.source == path or policy.managed_mcp.problem is not None
    return policy
