"""How a local server is confined at each start: the policy's requirement, the user's "without the sandbox this
time" where no tier works, and a restart when a sandboxed server's roots (its writable folders) change. Real
bubblewrap, a real stdio server."""

from __future__ import annotations

import errno
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.landlock import LandlockUnavailable
from desktop_app.core.sandbox.probe import probe
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import open_transport
from tests.core.sandbox.conftest import Home, home  # noqa: F401  (the planted home fixture)
from tests.hosting import FAST_RESTARTS, eventually, serving_configs
from tests.policy_files import put_policy

pytestmark = pytest.mark.anyio


def _no_landlock() -> int:
    raise LandlockUnavailable(errno.ENOSYS, "this kernel has no Landlock")


def _no_tier_host() -> ServerHost:
    return ServerHost(
        policy=FAST_RESTARTS,
        target_factory=lambda config, hooks: open_transport(
            config, hooks, sandbox=lambda: probe(which=lambda _: None, landlock_abi=_no_landlock)
        ),
    )


def _notes(host: ServerHost, name: str = "probe") -> list[str]:
    return [entry.text for entry in host.connection(name).log if entry.source == "host"]


async def test_the_policy_sandboxes_a_server_whose_entry_does_not(
    home: Home,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    put_policy(tmp_path, monkeypatch, {"sandbox": {"required": True}})
    async with serving_configs(home.config(sandboxed=False), settle=30) as host:
        assert host.connection("probe").status.state is ServerState.READY
        assert any(text.startswith("sandboxed: bubblewrap") for text in _notes(host))
        assert host.connection("probe").confinement.protection(host.connection("probe").config).startswith("sandboxed")


async def test_without_a_tier_the_user_may_run_it_unconfined_this_time_unless_the_policy_requires_it(
    home: Home,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host = _no_tier_host()
    host.start([home.config(sandboxed=True)])
    try:
        connection = host.connection("probe")
        assert (await connection.wait_settled(30)).state is ServerState.FAILED
        assert connection.confinement.offers_unconfined
        assert "bubblewrap (bwrap) is not installed" in (connection.confinement.unavailable or "")
        connection.confinement.unconfined = True  # the user's click
        await host.restart("probe")
        assert (await connection.wait_settled(30)).state is ServerState.READY
        assert "not sandboxed: you chose to run it without the sandbox this time" in _notes(host)
        assert connection.confinement.protection(connection.config) == "not sandboxed"
        assert connection.config.sandbox_enabled  # the entry is unchanged: only this run
    finally:
        await host.stop_all()

    put_policy(tmp_path, monkeypatch, {"sandbox": {"required": True}})
    host = _no_tier_host()
    host.start([home.config(sandboxed=False)])
    try:
        connection = host.connection("probe")
        connection.confinement.unconfined = True  # nothing may lift the organisation's requirement
        status = await connection.wait_settled(30)
        assert status.state is ServerState.FAILED
        assert status.reason is not None and "(sandbox.required)" in status.reason
        assert not connection.confinement.offers_unconfined
    finally:
        await host.stop_all()


async def test_a_sandboxed_server_restarts_when_its_roots_change_an_unsandboxed_one_is_told(
    home: Home,  # noqa: F811
) -> None:
    drafts = home.root / "drafts"
    drafts.mkdir()
    confined = replace(home.config(sandboxed=True), roots=(str(home.notes),))
    plain = replace(home.config(sandboxed=False, name="plain"), roots=(str(home.notes),))
    async with serving_configs(confined, plain, settle=30) as host:
        sandboxed = host.connection("probe")
        assert sandboxed.confinement.roots == (home.notes.as_uri(),)
        first_client, plain_client = sandboxed.client, host.connection("plain").client
        await host.apply([replace(confined, roots=(str(drafts),)), replace(plain, roots=(str(drafts),))])
        await eventually(
            lambda: sandboxed.status.state is ServerState.READY and sandboxed.client is not first_client,
            30,
            "the sandboxed server restarted",
        )
        assert sandboxed.confinement.roots == (drafts.as_uri(),)
        assert "roots changed: restarting so its sandbox matches them" in _notes(host)
        assert host.connection("plain").client is plain_client  # not restarted
        assert host.connection("plain").confinement.roots is None
