"""The MCP conformance suite's client scenarios, run against MCP Desk (`client.py`).

`python -m tests.conformance.runner [SCENARIO…]` runs every client scenario the suite lists (or
the ones named), two at a time, prints one line per scenario, then how many passed of each
requirement set the suite defines (each spec revision's frozen set, and the extensions), and exits
1 when one fails: none is expected to.
The tests use `run_scenario` for the sign-in scenarios. The suite is written for Node 22; on
Node 20 it runs with `node20.mjs` preloaded.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

from tests.conformance.forks import client_forks

ROOT: Final = Path(__file__).resolve().parents[2]
HERE: Final = Path(__file__).resolve().parent
SUITE: Final = ROOT / "tests/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js"
SCENARIO_TIMEOUT_MS: Final = 90_000
"""Generous: on a busy two-core machine a scenario's client needs a few seconds just to start."""
PARALLEL: Final = 2

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
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
)
"""Every sign-in scenario the suite lists: `make test` runs these (`test_client_auth_scenarios.py`)."""
EXTENSION: Final = "extension"
"""The tag `list --client` gives the scenarios of extensions (scored in no spec revision's set)."""
OTHER: Final = "other"
"""Scenarios in no requirement set (older revisions', or added after a revision was frozen)."""
_LISTED: Final = re.compile(r"^\s+- (\S+)(?: \[([^\]]*)\])?$")


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
        mark = "✓" if self.passed else "✗"
        failed = f" (failed: {', '.join(self.failures)})" if self.failures else ""
        return f"{mark} {self.name}: {len(self.ids('SUCCESS'))} checks passed{failed}, {self.seconds:.1f} s"


def suite_command(*args: str) -> list[str]:
    return ["node", "--import", str(HERE / "node20.mjs"), str(SUITE), *args]


CLIENT_COMMAND: Final = f"{sys.executable} -m tests.conformance.client"


def run_scenario(name: str, client: str = CLIENT_COMMAND) -> ScenarioResult:
    """Run one client scenario with MCP Desk's client (`client`: its command, or `forks.client_forks()`'s);
    its checks as the suite wrote them."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conformance-") as out:
        done = subprocess.run(
            suite_command(
                "client",
                "--command",
                client,
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


def suite_lists(*args: str) -> list[tuple[str, tuple[str, ...]]]:
    """The client scenarios `list --client ARGS` prints, each with its tags (`[2025-11-25,extension]`)."""
    out = subprocess.run(
        suite_command("list", "--client", *args), cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    listed: list[tuple[str, tuple[str, ...]]] = []
    section = ""
    for line in out.splitlines():
        if line and not line[0].isspace():
            section = line
        elif section.startswith("Client scenarios") and (found := _LISTED.match(line)):
            listed.append((found[1], tuple(found[2].split(",")) if found[2] else ()))
    return listed


def requirement_sets(listed: list[tuple[str, tuple[str, ...]]]) -> dict[str, frozenset[str]]:
    """Each requirement set the suite defines, with its client scenarios: the spec revisions' frozen sets, then
    the extensions' (the scenarios `listed` with that tag)."""
    help_text = " ".join(subprocess.run(suite_command("list", "--help"), capture_output=True, text=True).stdout.split())
    found = re.search(r"Requirement sets available: ([\d, -]+)", help_text)
    assert found is not None, f"the suite names no requirement sets: {help_text}"
    revisions = [r.strip() for r in found[1].split(",") if r.strip()]
    sets = {r: frozenset(name for name, _ in suite_lists("--requirements", r)) for r in revisions}
    sets[EXTENSION] = frozenset(name for name, tags in listed if EXTENSION in tags)
    return sets


def tally(results: list[ScenarioResult], sets: dict[str, frozenset[str]]) -> list[str]:
    """ "set: passed/total" for each requirement set the results touch, and for the scenarios in none."""
    lines = []
    grouped = {name: [r for r in results if r.name in members] for name, members in sets.items()}
    grouped[OTHER] = [r for r in results if not any(r.name in members for members in sets.values())]
    for name, ran in grouped.items():
        if ran:
            lines.append(f"{name}: {sum(r.passed for r in ran)}/{len(ran)}")
    return lines


def main(argv: list[str]) -> int:
    listed = suite_lists()
    names = argv or [name for name, _ in listed]
    sets = requirement_sets(listed)
    started = time.monotonic()
    with client_forks() as client, ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(partial(run_scenario, client=client), names))
    bad = [r for r in results if not r.passed]
    for result in results:
        print(result.line())
    passed = sum(r.passed for r in results)
    print(f"\n{passed}/{len(results)} scenarios passed in {time.monotonic() - started:.0f} s")
    print("By requirement set (passed/total):", *tally(results, sets), sep="\n  ")
    for result in bad:
        print(f"\n--- {result.name} ---\n{result.output[-3000:]}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
