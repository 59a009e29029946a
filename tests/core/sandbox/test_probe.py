"""What the system can confine with: bubblewrap when it works, else Landlock, else nothing and why."""

from __future__ import annotations

import errno

import pytest

from desktop_app.core.host import ServerHost
from desktop_app.core.sandbox.landlock import LandlockUnavailable
from desktop_app.core.sandbox.probe import BUBBLEWRAP, LANDLOCK, SandboxSupport, SandboxUnavailable, probe
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import open_transport
from tests.core.sandbox.conftest import Home
from tests.hosting import FAST_RESTARTS


def no_landlock() -> int:
    raise LandlockUnavailable(errno.ENOSYS, "this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK)")


def test_bubblewrap_works_here() -> None:
    support = probe(landlock_abi=no_landlock)
    assert support.tier == BUBBLEWRAP, support.problem
    assert support.require("files") is support
    assert support.program is not None and support.label == BUBBLEWRAP


def test_bubblewrap_wins_over_landlock_when_both_work() -> None:
    assert probe(landlock_abi=lambda: 7).tier == BUBBLEWRAP


def test_missing_bwrap_names_the_package_to_install() -> None:
    support = probe(which=lambda _name: None, landlock_abi=no_landlock)
    assert support.tier is None
    with pytest.raises(SandboxUnavailable, match=r"server 'files'.*bubblewrap.*not installed.*install.*no Landlock"):
        support.require("files")


def test_bwrap_that_cannot_make_namespaces_says_so() -> None:
    support = probe(which=lambda _name: "/bin/false", landlock_abi=no_landlock)
    assert support.tier is None
    assert support.problem is not None and "cannot create namespaces" in support.problem
    assert "no Landlock" in support.problem


@pytest.mark.parametrize("which", [lambda _name: None, lambda _name: "/bin/false"], ids=["no bwrap", "no namespaces"])
def test_landlock_is_the_tier_where_bubblewrap_cannot_run(which: object) -> None:
    support = probe(which=which, landlock_abi=lambda: 6)  # type: ignore[arg-type]
    assert (support.tier, support.abi, support.program, support.problem) == (LANDLOCK, 6, None, None)
    assert support.require("files") is support
    assert support.label == "Landlock"


def test_landlock_without_tcp_filtering_says_the_network_is_not_filtered() -> None:
    support = probe(which=lambda _name: None, landlock_abi=lambda: 3)
    assert support.label == "Landlock — network not filtered"


@pytest.mark.anyio
async def test_without_any_tier_a_sandboxed_server_does_not_start_and_says_why(home: Home) -> None:
    host = ServerHost(
        policy=FAST_RESTARTS,
        target_factory=lambda config, hooks: open_transport(
            config, hooks, sandbox=lambda: probe(which=lambda _: None, landlock_abi=no_landlock)
        ),
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
        assert "no Landlock" in status.reason
        assert status.attempt == 0  # not retried: installing is the user's move
    finally:
        await host.stop_all()


def test_unavailable_support_is_refused_by_name() -> None:
    with pytest.raises(SandboxUnavailable, match="server 'x' is sandboxed"):
        SandboxSupport(None, problem="nothing works").require("x")
