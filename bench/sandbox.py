"""Starting a sandboxed server: the same stdio server started sandboxed and not, side by side.

Each round starts the fixture server (a small SDK server over stdio, run by this interpreter) through the host
unconfined, then inside each tier this machine can run: bubblewrap, bubblewrap with `allowedDomains` (the
filtering proxy too) and Landlock; each start is timed from `start` to the server initialized and listed
(ready). Runs of each kind alternate, so drift in the machine's load affects all alike; figures are medians,
and each tier's cost is the median of its per-round difference to the unconfined start of the same round.

    python bench/sandbox.py [--rounds N]

Goal: sandboxing adds at most 100 ms to a server's start, in each tier. Exits 1 when missed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import Goals, machine_load, median, spread

from desktop_app.core.host import ServerHost
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.sandbox.landlock import abi_version
from desktop_app.core.sandbox.probe import LANDLOCK, SandboxSupport, probe_bubblewrap
from desktop_app.core.sandbox.settings import SandboxSettings
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.core.transports import open_transport
from tests.hosting import fixture_config

ROUNDS: Final = 7
GOAL_MS: Final = 100.0
PLAIN: Final = "unconfined"


def tiers() -> dict[str, tuple[SandboxSupport, SandboxSettings]]:
    """The tiers this machine can run, each with the sandbox settings its start uses."""
    found: dict[str, tuple[SandboxSupport, SandboxSettings]] = {}
    bubblewrap = probe_bubblewrap()
    if bubblewrap.tier is not None:
        found["bubblewrap"] = (bubblewrap, SandboxSettings())
        found["bubblewrap + allowedDomains (proxy)"] = (bubblewrap, SandboxSettings(allowed_domains=("example.org",)))
    try:
        found["Landlock"] = (SandboxSupport(LANDLOCK, abi=abi_version()), SandboxSettings())
    except OSError as exc:
        print(f"  Landlock cannot run here ({exc.strerror or exc}): not measured")
    return found


async def start_once(config: ServerConfig, support: SandboxSupport | None) -> float:
    """Seconds from `start` to the server ready (initialized and listed) through the host."""
    host = ServerHost(
        policy=RestartPolicy(max_attempts=0),
        target_factory=lambda c, hooks: open_transport(c, hooks, sandbox=lambda: support or SandboxSupport(None)),
    )
    began = time.perf_counter()
    host.start([config])
    try:
        status = await host.connection(config.name).wait_settled(60)
        took = time.perf_counter() - began
        if status.state is not ServerState.READY:
            raise SystemExit(f"{config.name} did not start: {status.summary}")
        return took
    finally:
        await host.stop_all()


async def measure(rounds: int) -> dict[str, list[float]]:
    kinds = tiers()
    runs: dict[str, list[float]] = {PLAIN: [], **{name: [] for name in kinds}}
    plain = fixture_config("bench")
    await start_once(plain, None)  # warm the caches (bytecode, the probe's first bwrap) before timing
    for _ in range(rounds):
        runs[PLAIN].append(await start_once(plain, None))
        for name, (support, settings) in kinds.items():
            config = replace(plain, sandbox_enabled=True, sandbox=settings)
            runs[name].append(await start_once(config, support))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"starts of each kind (default {ROUNDS})")
    args = parser.parse_args()
    print(f"Starting one stdio server sandboxed and not ({machine_load()})")
    runs = asyncio.run(measure(args.rounds))
    for name, values in runs.items():
        print(f"  {name:<38} {median(values) * 1000:6.0f} ms to ready   {spread(values, 1000, ' ms')}")
    goals = Goals()
    for name, values in runs.items():
        if name == PLAIN:
            continue
        added = median([s - p for s, p in zip(values, runs[PLAIN], strict=True)]) * 1000
        goals.check(f"{name}: added to the start", added, GOAL_MS, "ms", f"median of {args.rounds} rounds")
    goals.exit()


if __name__ == "__main__":
    main()
