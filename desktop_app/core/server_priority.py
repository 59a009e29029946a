"""Local servers give the processor to the window first: a started server runs at a lower priority.

Linux schedules each session as one group, weighed against every other group before the processes inside
it ("autogroup", on by default in desktop kernels), and the SDK starts every stdio server in a session of
its own. So each server, however small its share of the work, weighed as much as the whole app: with five
servers starting beside it on two cores, the model library's import took 2.7–3.7 s by the wall for 2.0 s
of CPU, and a message sent at once left 4.3 s after the first paint (3.4 s now). A server's group now has
a nice value 10 above the app's, which it and everything it starts share; where there are no groups
(other kernels, macOS) the server's own process gets the same. A server still has every idle processor;
it only waits while the window needs one. A sandbox that opens a session of its own inside (bubblewrap's
`--new-session`) starts a group of its own there a few milliseconds later: that group is lowered too,
once it appears.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

LOWER_BY: Final = 10
"""How much lower than the app a server runs: nice 10 weighs about a tenth of nice 0."""
LOWEST: Final = 19
INNER_SESSION_WAIT_S: Final = 5.0
"""How long to look for the session a sandbox opens inside (it appears within milliseconds)."""


def lower_priority(pid: int) -> None:
    """Run the just-started process `pid` (and what it starts from now on) below the app; best effort."""
    own_group = _group_nice(Path("/proc/self/autogroup"))
    if own_group is not None:
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/autogroup").write_text(str(min(own_group + LOWER_BY, LOWEST)))
    if hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):
            mine = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, pid, min(mine + LOWER_BY, LOWEST))


def _group_nice(path: Path) -> int | None:
    """The nice value of the scheduling group `path` describes (`/autogroup-42 nice 0`); None without groups."""
    try:
        text = path.read_text()
    except OSError:
        return None
    words = text.split()
    if len(words) == 3 and words[1] == "nice":
        with contextlib.suppress(ValueError):
            return int(words[2])
    return None


def lower_inner_session(pid: int) -> None:
    """Lower the session the sandbox `pid` opens inside, once it appears: looked for in a thread of its own,
    every 10 ms for at most `INNER_SESSION_WAIT_S`."""
    threading.Thread(target=_lower_inner_session, args=(pid,), name=f"priority:{pid}", daemon=True).start()


def _lower_inner_session(pid: int) -> None:
    outer = _session(pid)
    deadline = time.monotonic() + INNER_SESSION_WAIT_S
    while outer is not None and time.monotonic() < deadline:
        inner = next((child for child in _descendants(pid) if _session(child) not in (None, outer)), None)
        if inner is not None:
            lower_priority(inner)
            return
        time.sleep(0.01)


def _descendants(pid: int) -> Iterator[int]:
    """The processes below `pid`, as Linux lists each one's children; none where it does not."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return
    for child in map(int, children):
        yield child
        yield from _descendants(child)


def _session(pid: int) -> int | None:
    """The session `pid` belongs to (the fourth field after the command's name in its `stat`), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[3])
    except (OSError, IndexError, ValueError):
        return None
