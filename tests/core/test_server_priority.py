"""A local server runs below the app: its scheduling group (Linux's per-session group) and its process get a
nice value 10 above the app's, so a server starting or busy never takes the processor the window needs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.core.server_priority import LOWER_BY, _group_nice
from desktop_app.core.server_status import ServerState
from tests.hosting import fixture_config, live_children, serving_configs

pytestmark = pytest.mark.anyio


@pytest.mark.own_process  # the server's own process, in the session the SDK opened for it
async def test_a_started_server_and_its_group_run_below_the_app() -> None:
    async with serving_configs(fixture_config("fx")) as host:
        assert host.connection("fx").status.state is ServerState.READY
        (server,) = live_children()
        assert os.getpriority(os.PRIO_PROCESS, server) == os.getpriority(os.PRIO_PROCESS, 0) + LOWER_BY
        own_group = _group_nice(Path("/proc/self/autogroup"))
        if own_group is not None:  # a kernel that schedules sessions as groups
            assert _group_nice(Path(f"/proc/{server}/autogroup")) == own_group + LOWER_BY


@pytest.mark.parametrize(
    ("text", "nice"),
    [("/autogroup-42 nice 0\n", 0), ("/autogroup-7 nice 12\n", 12), ("", None), ("/autogroup-1 nice x\n", None)],
)
def test_a_groups_nice_value_is_read_or_left_alone(tmp_path: Path, text: str, nice: int | None) -> None:
    path = tmp_path / "autogroup"
    path.write_text(text)
    assert _group_nice(path) == nice
    assert _group_nice(tmp_path / "absent") is None
