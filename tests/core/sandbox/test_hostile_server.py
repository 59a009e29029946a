"""A hostile stdio server, run through the real core: confined, every attack fails; unconfined, each works."""

from __future__ import annotations

import pytest

from tests.core.sandbox.conftest import APP_SECRET, DIARY, KEY, README, Home
from tests.core.sandbox.probes import GREETING, listener, run_probe

pytestmark = pytest.mark.anyio


async def test_sandboxed_server_fails_every_attack_and_writes_only_where_allowed(home: Home) -> None:
    async with listener() as port:
        report = await run_probe(home.config(sandboxed=True), home, port)
    allowed = {f"read {home.readme}", f"write {home.notes / 'note.txt'}"}
    for attempt, outcome in report.items():
        expected = "ok" if attempt in allowed else "denied"
        assert outcome.startswith(expected), f"{attempt}: {outcome}"
    assert README in report[f"read {home.readme}"]
    assert (home.notes / "note.txt").read_text() == "written by the probe"
    assert not (home.root / "outside.txt").exists()


async def test_unsandboxed_control_succeeds_at_each_attack(home: Home) -> None:
    async with listener() as port:
        report = await run_probe(home.config(sandboxed=False), home, port)
    for attempt, outcome in report.items():
        assert outcome.startswith("ok"), f"{attempt}: {outcome}"
    assert KEY in report[f"read {home.key}"]
    assert APP_SECRET in report[f"read {home.app_secret}"]
    assert DIARY in report[f"read {home.diary}"]
    assert GREETING in report["connect"]
    assert KEY in report["proc root"] and KEY in report["child read"]


async def test_listed_domains_open_no_direct_route_and_the_log_says_what_is_reachable(home: Home) -> None:
    log: list[str] = []
    async with listener() as port:
        report = await run_probe(home.config(sandboxed=True, allowed_domains=("localhost",)), home, port, log)
    assert report["connect"].startswith("denied"), report["connect"]
    assert [line for line in log if "sandboxed" in line] == [
        "info: sandboxed: bubblewrap (files read-only, secrets hidden, network only to localhost through the "
        "sandbox's proxy)"
    ]
