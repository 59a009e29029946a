"""The hostile stdio server written for node (on the MCP TypeScript SDK), run through the real host over real
stdio: under bubblewrap and under Landlock every attack fails and only the allowed read and write succeed;
unconfined, as the control, each attack works. Skipped, saying why, without node or the npm test peers (unless
`make test` requires them), and the Landlock run where the kernel has no Landlock."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.sandbox.landlock import NETWORK_ABI
from desktop_app.core.sandbox.probe import SandboxSupport, probe_bubblewrap
from desktop_app.core.server_config import ServerConfig
from tests.core.sandbox.conftest import APP_SECRET, DIARY, KEY, README, Home, landlock_tier
from tests.core.sandbox.probes import GREETING, call, host_lines, listener, run_probe, started
from tests.servers.everything import NPM_DIR, REQUIRE_TEST_SERVERS

NODE_PROBE = Path(__file__).resolve().parents[2] / "servers" / "sandbox_probe_server.mjs"
SDK = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server" / "package.json"
PLANTED = (KEY, APP_SECRET, DIARY)


def _missing() -> str | None:
    """What keeps the node probe from running here (None: nothing). Under `make test`, which installs the npm
    test peers, a missing one is an error, not a skip."""
    missing = "node is not on PATH" if shutil.which("node") is None else None
    if missing is None and not SDK.is_file():
        missing = f"{SDK} is missing (make test installs the npm test peers)"
    if missing is not None and os.environ.get(REQUIRE_TEST_SERVERS) == "1":
        raise RuntimeError(f"the node probe server cannot run ({missing}) but {REQUIRE_TEST_SERVERS}=1")
    return missing


MISSING = _missing()
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.npm,
    pytest.mark.skipif(MISSING is not None, reason=f"the node probe server cannot run: {MISSING}"),
]


def node_config(home: Home, *, sandboxed: bool) -> ServerConfig:
    """The planted home's entry (allowWrite its notes, denyRead its private folder), running the node probe."""
    node = shutil.which("node")
    assert node is not None
    return dataclasses.replace(
        home.config(sandboxed=sandboxed, name="node-probe"), command=node, args=(str(NODE_PROBE),)
    )


def attacks(home: Home, port: int) -> dict[str, Any]:
    """Everything the probe is told to try: keys, the app's secret, a denyRead file, a file anyone may read,
    a file in the host's /tmp, a write outside allowWrite and one inside, the listener, /proc, a child."""
    return {
        "read": [str(home.key), str(home.app_secret), str(home.diary), str(home.readme), str(home.host_tmp_file)],
        "write": [str(home.root / "outside.txt"), str(home.notes / "note.txt")],
        "connect": port,
        "proc_root": str(home.key),
        "child_read": str(home.key),
    }


def attempts(home: Home) -> set[str]:
    """The report's keys, named as the Python probe names them: one per attempt."""
    arguments = attacks(home, 0)
    return {
        *(f"read {path}" for path in arguments["read"]),
        *(f"write {path}" for path in arguments["write"]),
        "connect",
        "proc root",
        "child read",
    }


def assert_confined(report: dict[str, str], home: Home, allowed: set[str]) -> None:
    """Every attempt but `allowed` was denied, and no denial leaks what it guarded."""
    assert set(report) == attempts(home), report
    for attempt, outcome in report.items():
        expected = "ok" if attempt in allowed else "denied"
        assert outcome.startswith(expected), f"{attempt}: {outcome}"
        if expected == "denied":
            assert not any(text in outcome for text in (*PLANTED, GREETING)), f"{attempt}: {outcome}"
    assert README in report[f"read {home.readme}"]
    assert (home.notes / "note.txt").read_text() == "written by the probe"
    assert not (home.root / "outside.txt").exists()


async def confined_run(home: Home, tier: SandboxSupport) -> tuple[dict[str, str], list[str]]:
    """The node probe started sandboxed by a real host confining it with `tier`, told every attack: its report
    and the host's lines in its log. Asserts the start was confined by that tier and no other."""
    asked: list[str | None] = []

    def support() -> SandboxSupport:
        asked.append(tier.tier)
        return tier

    async with listener() as port, started(node_config(home, sandboxed=True), sandbox=support) as connection:
        report = await call(connection, "probe", attacks(home, port))
        lines = host_lines(connection)
    assert asked == [tier.tier]
    return report, lines


async def test_node_server_under_bubblewrap_fails_every_attack_and_writes_only_where_allowed(home: Home) -> None:
    tier = probe_bubblewrap()
    if tier.tier is None:
        pytest.skip(f"bubblewrap cannot run here: {tier.problem}")
    report, lines = await confined_run(home, tier)
    assert [line for line in lines if "sandboxed" in line] == [
        "info: sandboxed: bubblewrap (files read-only, secrets hidden, no network)"
    ]
    assert_confined(report, home, {f"read {home.readme}", f"write {home.notes / 'note.txt'}"})


async def test_node_server_under_landlock_fails_every_attack_and_writes_only_where_allowed(home: Home) -> None:
    tier = landlock_tier()
    report, _lines = await confined_run(home, tier)
    allowed = {f"read {home.readme}", f"write {home.notes / 'note.txt'}"}
    if (tier.abi or 0) < NETWORK_ABI:
        allowed.add("connect")  # this kernel's Landlock cannot filter TCP
    assert_confined(report, home, allowed)


async def test_node_server_unsandboxed_control_succeeds_at_each_attack(home: Home) -> None:
    async with listener() as port:
        report = await run_probe(node_config(home, sandboxed=False), home, port)
    assert set(report) == attempts(home), report
    for attempt, outcome in report.items():
        assert outcome.startswith("ok"), f"{attempt}: {outcome}"
    assert KEY in report[f"read {home.key}"]
    assert APP_SECRET in report[f"read {home.app_secret}"]
    assert DIARY in report[f"read {home.diary}"]
    assert README in report[f"read {home.readme}"]
    assert GREETING in report["connect"]
    assert KEY in report["proc root"] and KEY in report["child read"]
    assert (home.root / "outside.txt").read_text() == "written by the probe"
    assert (home.notes / "note.txt").read_text() == "written by the probe"
