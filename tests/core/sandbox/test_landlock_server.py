"""The hostile stdio server under the Landlock tier, run through the real host over real stdio: every attack
fails, the allowed write succeeds, and listed hosts are reached only through the proxy. Skipped, saying why,
where the kernel has no Landlock."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

import pytest

from desktop_app.core.sandbox.landlock import NETWORK_ABI
from desktop_app.core.server_config import ServerConfig
from tests.core.sandbox.conftest import README, Home, landlock_tier
from tests.core.sandbox.probes import call, listener, started
from tests.core.sandbox.web_server import web_server

pytestmark = pytest.mark.anyio


def confined(config: ServerConfig) -> AbstractAsyncContextManager[Any]:
    """`config` started by a real host that confines with Landlock (even where bubblewrap works)."""
    tier = landlock_tier()
    return started(config, sandbox=lambda: tier)


async def test_landlocked_server_fails_every_attack_and_writes_only_where_allowed(home: Home) -> None:
    async with listener() as port, confined(home.config(sandboxed=True)) as connection:
        report = await call(
            connection,
            "probe",
            {
                "read": [
                    str(home.key),
                    str(home.app_secret),
                    str(home.diary),
                    str(home.readme),
                    str(home.host_tmp_file),
                ],
                "write": [str(home.root / "outside.txt"), str(home.notes / "note.txt")],
                "connect": port,
                "proc_root": str(home.key),
                "child_read": str(home.key),
            },
        )
    allowed = {f"read {home.readme}", f"write {home.notes / 'note.txt'}"}
    if (landlock_tier().abi or 0) < NETWORK_ABI:
        allowed.add("connect")  # this kernel's Landlock cannot filter TCP
    for attempt, outcome in report.items():
        expected = "ok" if attempt in allowed else "denied"
        assert outcome.startswith(expected), f"{attempt}: {outcome}"
    assert README in report[f"read {home.readme}"]
    assert (home.notes / "note.txt").read_text() == "written by the probe"
    assert not (home.root / "outside.txt").exists()


async def test_landlocked_server_reaches_listed_hosts_only_through_the_proxy(home: Home) -> None:
    if (landlock_tier().abi or 0) < NETWORK_ABI:
        pytest.skip(f"this kernel's Landlock ABI is below {NETWORK_ABI}: it cannot filter TCP")
    config = home.config(sandboxed=True, allowed_domains=("allowed.test",))
    async with AsyncExitStack() as stack:
        port = await stack.enter_async_context(web_server(b"served"))
        greeter = await stack.enter_async_context(listener())
        connection = await stack.enter_async_context(confined(config))
        allowed, other = f"http://allowed.test:{port}/", f"http://other.test:{port}/"
        report = await call(connection, "fetch", {"urls": [allowed, other], "child_url": allowed})
        direct = await call(connection, "probe", {"connect": greeter})
    assert report[allowed].startswith("ok: 200 served"), report[allowed]
    assert report[other].startswith("denied: 403") and "not in allowedDomains" in report[other]
    assert report["child"].startswith("ok: 200 served"), report["child"]
    assert report["proxy"].startswith("http://127.0.0.1:")
    assert direct["connect"].startswith("denied"), direct["connect"]


async def test_landlocked_server_without_listed_hosts_has_no_network(home: Home) -> None:
    if (landlock_tier().abi or 0) < NETWORK_ABI:
        pytest.skip(f"this kernel's Landlock ABI is below {NETWORK_ABI}: it cannot filter TCP")
    async with web_server(b"served") as port, confined(home.config(sandboxed=True)) as connection:
        report = await call(connection, "fetch", {"urls": [f"http://127.0.0.1:{port}/"]})
    assert report["proxy"] == "none"
    assert report[f"http://127.0.0.1:{port}/"].startswith("denied: "), report
