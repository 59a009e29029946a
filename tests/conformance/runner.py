"""The MCP conformance suite's client scenarios, run against MCP Desk (`client.py`).

`python -m tests.conformance.runner [SCENARIO…]` runs every client scenario (or the ones named),
two at a time, prints one line per scenario and exits 1 when one fails that is not an expected
refusal (`EXPECTED_REFUSALS`). The tests use `run_scenario` for the sign-in scenarios.
The suite is written for Node 22; on Node 20 it runs with `node20.mjs` preloaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
HERE: Final = Path(__file__).resolve().parent
SUITE: Final = ROOT / "tests/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js"
SCENARIO_TIMEOUT_MS: Final = 90_000
"""Generous: on a busy two-core machine a scenario's client needs a few seconds just to start."""
PARALLEL: Final = 2

CORE_SCENARIOS: Final = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")
AUTH_SCENARIOS: Final = (
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
)
EXPECTED_REFUSALS: Final = {
    # RFC 8414 §3.3: metadata whose issuer is not the one it was found at MUST NOT be used (README, "Signing in").
    "auth/2025-03-26-oauth-metadata-backcompat": ("client-registration", "authorization-request", "token-request"),
}


@dataclass(frozen=True)
class ScenarioResult:
    """What the suite checked in one scenario, and how the client ended."""

    name: str
    checks: tuple[dict[str, Any], ...]
    output: str
    seconds: float

    def ids(self, status: str) -> list[str]:
        return [check["id"] for check in self.checks if check.get("status") == status]

    @property
    def failures(self) -> list[str]:
        """Checks that failed or warned."""
        return self.ids("FAILURE") + self.ids("WARNING")

    @property
    def passed(self) -> bool:
        return bool(self.checks) and not self.failures

    def line(self) -> str:
        mark = "✓" if self.passed else ("refused" if self.refused_as_expected else "✗")
        failed = f" (failed: {', '.join(self.failures)})" if self.failures else ""
        return f"{mark} {self.name}: {len(self.ids('SUCCESS'))} checks passed{failed}, {self.seconds:.1f} s"

    @property
    def refused_as_expected(self) -> bool:
        expected = EXPECTED_REFUSALS.get(self.name)
        return expected is not None and sorted(self.failures) == sorted(expected)


def suite_command(*args: str) -> list[str]:
    return ["node", "--import", str(HERE / "node20.mjs"), str(SUITE), *args]


def run_scenario(name: str) -> ScenarioResult:
    """Run one client scenario with MCP Desk's client; its checks as the suite wrote them."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conformance-") as out:
        done = subprocess.run(
            suite_command(
                "client",
                "--command",
                f"{sys.executable} -m tests.conformance.client",
                "--scenario",
                name,
                "--timeout",
                str(SCENARIO_TIMEOUT_MS),
                "--output-dir",
                out,
            ),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT_MS / 1000 + 60,
        )
        checks: list[dict[str, Any]] = []
        for path in Path(out).rglob("checks.json"):
            checks.extend(json.loads(path.read_text()))
        client_err = "".join(path.read_text() for path in Path(out).rglob("stderr.txt"))
    return ScenarioResult(name, tuple(checks), done.stderr + client_err, time.monotonic() - started)


def main(argv: list[str]) -> int:
    names = argv or [*CORE_SCENARIOS, *AUTH_SCENARIOS]
    started = time.monotonic()
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(run_scenario, names))
    bad = [r for r in results if not r.passed and not r.refused_as_expected]
    for result in results:
        print(result.line())
    passed = sum(r.passed for r in results)
    print(f"\n{passed}/{len(results)} scenarios passed in {time.monotonic() - started:.0f} s", end="")
    refused = [r.name for r in results if r.refused_as_expected]
    print(f"; refused on purpose: {', '.join(refused)}" if refused else "")
    for result in bad:
        print(f"\n--- {result.name} ---\n{result.output[-3000:]}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
