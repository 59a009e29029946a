"""MCP Desk's sign-in against the MCP conformance suite's authorization scenarios for clients.

Each `auth/` scenario the suite lists, extensions included (DPoP, workload identity, enterprise-
managed authorization, client credentials), starts the suite's own servers (an MCP server, its
authorization server, for the enterprise flow an identity provider too) and runs `client.py`:
MCP Desk's connection and sign-in as the window runs them. The suite's checks are what the
servers saw. `make conformance` runs the remaining (non-sign-in) client scenarios too.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Final

import pytest

from tests.conformance.forks import client_forks
from tests.conformance.runner import AUTH_SCENARIOS, SUITE, run_scenario, suite_lists

REQUIRE_TEST_SERVERS: Final = "MCP_DESK_REQUIRE_TEST_SERVERS"
MUST_SUCCEED: Final = {
    "auth/enterprise-managed-authorization": {
        "complete-flow-token-exchange",  # the ID token exchanged at the IdP for an ID-JAG, every parameter right
        "complete-flow-jwt-bearer",  # the ID-JAG presented at the authorization server, client_secret_basic
        "valid-bearer-token",  # and the MCP server took the token
    },
    "auth/dpop": {
        "sep-1932-client-token-request-proof",  # a valid proof at the token endpoint
        "sep-1932-client-dpop-auth-scheme",  # the token presented as `DPoP`, never `Bearer`
        "sep-1932-client-fresh-proof",  # a new, well-formed proof on every MCP request
    },
    "auth/dpop-nonce": {"sep-1932-client-as-nonce", "sep-1932-client-rs-nonce"},  # one retry with each nonce
    "auth/wif-jwt-bearer": {"wif-assertion-verified", "valid-bearer-token"},
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


def test_every_sign_in_scenario_the_suite_lists_is_run() -> None:
    assert sorted(AUTH_SCENARIOS) == sorted(name for name, _ in suite_lists() if name.startswith("auth/"))


@pytest.fixture(scope="module")
def client() -> Iterator[str]:
    """The suite's client command: forked from one process per test worker that imported the client once."""
    with client_forks() as command:
        yield command


@pytest.mark.parametrize("scenario", AUTH_SCENARIOS)
def test_sign_in_scenario(scenario: str, client: str) -> None:
    result = run_scenario(scenario, client)
    assert result.checks, result.output
    assert result.failures == [], result.output
    assert MUST_SUCCEED.get(scenario, set()) <= set(result.ids("SUCCESS")), result.output
