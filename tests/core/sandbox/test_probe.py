"""What the system can confine with: bubblewrap found and working, missing, or unable to make namespaces."""

from __future__ import annotations

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.probe import BUBBLEWRAP, SandboxUnavailable, probe
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import open_transport
from tests.core.sandbox.conftest import Home
from tests.hosting import FAST_RESTARTS


def test_bubblewrap_works_here() -> None:
    support = probe()
    assert support.tier == BUBBLEWRAP, support.problem
    assert support.require("files") == support.program


def test_missing_bwrap_names_the_package_to_install() -> None:
    support = probe(which=lambda _name: None)
    assert support.tier is None
    with pytest.raises(SandboxUnavailable, match=r"server 'files'.*bubblewrap.*not installed.*install"):
        support.require("files")


def test_bwrap_that_cannot_make_namespaces_says_so() -> None:
    support = probe(which=lambda _name: "/bin/false")
    assert support.tier is None
    assert support.problem is not None and "cannot create namespaces" in support.problem


@pytest.mark.anyio
async def test_without_bwrap_a_sandboxed_server_does_not_start_and_says_why(home: Home) -> None:
    host = ServerHost(
        policy=FAST_RESTARTS,
        target_factory=lambda config, hooks: open_transport(config, hooks, sandbox=lambda: probe(which=lambda _: None)),
    )
    host.start([home.config(sandboxed=True)])
    try:
        await host.wait_settled(30)
        status = host.connection("probe").status
        assert status.state is ServerState.FAILED
        assert status.reason is not None
        assert (
            "bubblewrap (bwrap) is not installed" in status.reason and "install the bubblewrap package" in status.reason
        )
        assert status.attempt == 0  # not retried: installing is the user's move
    finally:
        await host.stop_all()
