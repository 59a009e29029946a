"""MCP Desk's sign-in against the MCP conformance suite's authorization scenarios for clients.

Each scenario starts the suite's own servers (an MCP server, its authorization server, for
cross-app access an identity provider too) and runs `client.py`: MCP Desk's connection and
sign-in as the window runs them. The suite's checks are what the servers saw. One scenario is
refused on purpose: `auth/2025-03-26-oauth-metadata-backcompat` serves authorization server
metadata naming an issuer other than the one it was found at, which RFC 8414 §3.3 says MUST NOT be
used. `make conformance` runs the remaining (non-sign-in) client scenarios too.
"""

from __future__ import annotations

import os
import shutil
from typing import Final

import pytest

from tests.conformance.runner import AUTH_SCENARIOS, EXPECTED_REFUSALS, SUITE, run_scenario

REQUIRE_TEST_SERVERS: Final = "MCP_DESK_REQUIRE_TEST_SERVERS"
MUST_SUCCEED: Final = {
    "auth/cross-app-access-complete-flow": {
        "complete-flow-token-exchange",  # the ID token exchanged at the IdP for an ID-JAG, every parameter right
        "complete-flow-jwt-bearer",  # the ID-JAG presented at the authorization server, client_secret_basic
        "valid-bearer-token",  # and the MCP server took the token
    },
    "auth/2025-03-26-oauth-metadata-backcompat": {"authorization-server-metadata"},
    "auth/scope-step-up": {"valid-bearer-token"},
    "auth/pre-registration": {"valid-bearer-token"},
}


def suite_available() -> bool:
    """node and the installed suite; under `make test` their absence fails the tests instead of skipping them."""
    available = shutil.which("node") is not None and SUITE.is_file()
    if not available and os.environ.get(REQUIRE_TEST_SERVERS) == "1":
        raise RuntimeError(f"the conformance suite cannot run (node, {SUITE}) but {REQUIRE_TEST_SERVERS}=1")
    return available


pytestmark = [
    pytest.mark.npm,
    pytest.mark.timeout(300),  # a scenario starts node and a client process: slow on a busy machine
    pytest.mark.skipif(not suite_available(), reason="the npm test peers are not installed (make test does)"),
]


@pytest.mark.parametrize("scenario", AUTH_SCENARIOS)
def test_sign_in_scenario(scenario: str) -> None:
    result = run_scenario(scenario)
    assert result.checks, result.output
    expected = sorted(EXPECTED_REFUSALS.get(scenario, ()))
    assert sorted(result.failures) == expected, result.output
    assert MUST_SUCCEED.get(scenario, set()) <= set(result.ids("SUCCESS")), result.output
    if expected:
        # Refused for the reason the README gives, before registering or sending anyone to sign in.
        assert "names another issuer than the one it was found at" in result.output
