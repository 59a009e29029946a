"""A server bubblewrap confines runs below the app too: bubblewrap opens a session (and so a scheduling group)
of its own inside the sandbox, and that group is lowered once it appears, like an unconfined server's."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.sandbox.probe import BUBBLEWRAP, system_support
from desktop_app.core.server_priority import LOWER_BY, _descendants, _group_nice, _session
from desktop_app.core.server_status import ServerState
from tests.core.sandbox.conftest import Home
from tests.hosting import eventually, live_children, serving_configs

pytestmark = pytest.mark.anyio


async def test_the_session_a_sandbox_opens_inside_runs_below_the_app(home: Home) -> None:
    if system_support().tier != BUBBLEWRAP:
        pytest.skip("bubblewrap is not the sandbox here")
    own_group = _group_nice(Path("/proc/self/autogroup"))
    if own_group is None:
        pytest.skip("this kernel does not schedule sessions as groups")
    async with serving_configs(home.config(sandboxed=True), settle=60) as host:
        assert host.connection("probe").status.state is ServerState.READY
        (bubblewrap,) = live_children()
        inner = [pid for pid in _descendants(bubblewrap) if _session(pid) != _session(bubblewrap)]
        assert inner, "bubblewrap opened no session inside"
        await eventually(
            lambda: {_group_nice(Path(f"/proc/{pid}/autogroup")) for pid in inner} == {own_group + LOWER_BY},
            what="the inner session's group lowered",
        )
        assert _group_nice(Path(f"/proc/{bubblewrap}/autogroup")) == own_group + LOWER_BY
