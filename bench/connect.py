"""Connecting ten servers: MCP Desk's host against ten bare SDK clients on the same machine.

Each run starts ten copies of the reference server (`server-everything`, over stdio) and waits
until every one is connected and listed, either through the host (`ServerHost`, what the app
runs) or through ten bare `mcp.Client`s at once. The bare clients make the requests the host
makes of such a server (a 2025-11-25 one): the handshake declaring the same capabilities (so
the server offers the same tools and asks for the same roots), `logging/setLevel`, resources,
templates, prompts and tools listed to the last page, and the tools again when the server says
they changed. Runs of the two kinds alternate, so
drift in the machine's load affects both alike; figures are medians.

Measured per run: wall time from the first spawn to the last server listed, and CPU time: this
process's (the host or the bare clients) plus the servers' own, both up to that moment. The ten
node processes bound the absolute figures (two cores start ten servers about five at a time).

    python bench/connect.py [--rounds N]

Goal: ten servers through the host cost ≤ 1.05× ten bare clients (CPU time when the machine is
loaded, else wall and CPU). One server alone is reported too. Exits 1 when missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bare_client import OpenStreams, all_pages, list_everything
from harness import Goals, children_cpu, machine_load, median, spread
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    CreateMessageRequestParams,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    ToolListChangedNotification,
)

from desktop_app.core.host import ServerHost
from desktop_app.core.server_config import ServerConfig, TransportKind
from tests.servers.everything import EVERYTHING_ENTRY, everything_available, everything_stdio_params

SERVERS: Final = 10
ROUNDS: Final = 5
GOAL_RATIO: Final = 1.05


def everything_config(name: str) -> ServerConfig:
    params = everything_stdio_params()
    return ServerConfig(name=name, transport=TransportKind.STDIO, command=params.command, args=tuple(params.args))


async def _roots(context: ClientRequestContext) -> ListRootsResult:
    return ListRootsResult(roots=[])


async def _no_sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> ErrorData:
    return ErrorData(code=-1, message="declined")


async def _decline(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="decline")


async def bare_client(listed: asyncio.Event, release: asyncio.Event) -> None:
    """One hand-written client: connect, set the log level, list everything; then, as the host does,
    list the tools again when the server says they changed (server-everything does so as it
    connects: it offers more tools to a client that can answer its questions); stay open until released."""
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
        async with (
            stdio_client(everything_stdio_params(), errlog=errlog) as streams,
            Client(
                OpenStreams(streams),
                list_roots_callback=_roots,
                sampling_callback=_no_sampling,
                elicitation_callback=_decline,
                log_level="info",
                message_handler=on_message,
                cache=None,
            ) as client,
        ):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.set_logging_level("info")
            await list_everything(client)
            listed.set()

            async def relist_tools() -> None:
                while True:
                    await changed.wait()
                    changed.clear()
                    await all_pages(lambda c: client.list_tools(cursor=c))

            relisting = asyncio.create_task(relist_tools())
            await release.wait()
            relisting.cancel()
            await asyncio.gather(relisting, return_exceptions=True)


def _servers_cpu() -> float:
    """CPU seconds the running servers (children of this process) have used so far: read at the
    moment all are listed, so their shutdown (which differs: the host ends them faster) is not counted."""
    return sum(children_cpu(EVERYTHING_ENTRY.name.encode()))


Run = tuple[float, float, float]
"""Seconds: wall time to all listed, this process's CPU time meanwhile, the servers' CPU time."""


async def run_bare(count: int) -> Run:
    """`count` bare clients at once."""
    release = asyncio.Event()
    listed = [asyncio.Event() for _ in range(count)]
    cpu = time.process_time()
    started = time.perf_counter()
    tasks = [asyncio.create_task(bare_client(event, release)) for event in listed]
    waiting = asyncio.gather(*(event.wait() for event in listed))
    racing: set[asyncio.Future[Any]] = {waiting, *tasks}
    done, _ = await asyncio.wait(racing, timeout=120, return_when=asyncio.FIRST_COMPLETED)
    if waiting not in done:
        for task in tasks:
            task.cancel()
        raise RuntimeError(f"the bare clients did not all list: {[t.exception() for t in tasks if t.done()]}")
    wall = time.perf_counter() - started
    cpu_listed = time.process_time() - cpu
    servers = _servers_cpu()
    release.set()
    await asyncio.gather(*tasks)
    return wall, cpu_listed, servers


async def run_host(count: int) -> Run:
    """The same through the host: start `count` servers, wait until every one is ready and listed."""
    host = ServerHost()
    cpu = time.process_time()
    started = time.perf_counter()
    host.start([everything_config(f"everything-{i}") for i in range(count)])
    await host.wait_settled(120)
    wall = time.perf_counter() - started
    cpu_listed = time.process_time() - cpu
    servers = _servers_cpu()
    ready = host.ready_count()
    await host.stop_all()
    if ready != count:
        raise RuntimeError(f"only {ready} of {count} servers became ready")
    return wall, cpu_listed, servers


async def measure(rounds: int, profiler: Any = None) -> dict[str, list[Run]]:
    runs: dict[str, list[Run]] = {"bare": [], "host": [], "bare1": [], "host1": []}
    await run_bare(1)  # warm the OS caches for node and the package, and both sides' imports
    await run_host(1)
    for round_ in range(rounds):
        kinds = [("bare", run_bare), ("host", run_host)]
        for name, run in kinds if round_ % 2 == 0 else reversed(kinds):
            if profiler is not None and name == "host":
                profiler.enable()
            runs[name].append(await run(SERVERS))
            if profiler is not None:
                profiler.disable()
        for name, run in kinds if round_ % 2 else reversed(kinds):
            runs[f"{name}1"].append(await run(1))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"runs of each kind (default {ROUNDS})")
    parser.add_argument("--profile", action="store_true", help="cProfile the host's runs (figures then mean little)")
    args = parser.parse_args()
    if not everything_available():
        sys.exit("server-everything is not installed: run `make test` once (npm ci in tests/npm)")
    busy_before = os.getloadavg()[0] > (os.cpu_count() or 1)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    runs = asyncio.run(measure(args.rounds, profiler))
    busy = busy_before or os.getloadavg()[0] > (os.cpu_count() or 1)

    print(f"Connecting {SERVERS} server-everything servers: host vs bare SDK clients ({machine_load()})")

    def figures(name: str) -> tuple[float, float]:
        """Median wall and total CPU (this process and the servers) of a kind's runs."""
        return median([w for w, _, _ in runs[name]]), median([c + s for _, c, s in runs[name]])

    rows = (
        ("bare", f"{SERVERS} bare SDK clients"),
        ("host", f"{SERVERS} through the host"),
        ("bare1", "1 bare SDK client"),
        ("host1", "1 through the host"),
    )
    for name, label in rows:
        wall, cpu = figures(name)
        own = median([c for _, c, _ in runs[name]])
        walls = [w for w, _, _ in runs[name]]
        print(
            f"  {label:<22} {wall * 1000:6.0f} ms wall, {cpu * 1000:6.0f} ms CPU"
            f" ({own * 1000:5.0f} ms of it in this process)   {spread(walls, 1000, ' ms')}"
        )

    def paired(name: str, pick: Callable[[Run], float]) -> float:
        """The median over rounds of host / bare, each round's two runs side by side (drift cancels)."""
        return median([pick(h) / pick(b) for h, b in zip(runs[name], runs[name.replace("host", "bare")], strict=True)])

    own = median([h[1] - b[1] for h, b in zip(runs["host"], runs["bare"], strict=True)])
    print(f"  the host's own CPU over the bare clients': {own * 1000 / SERVERS:+.1f} ms per server")
    print(f"  one server, host / bare: {paired('host1', lambda r: r[0]):.2f}x wall (reported)")
    goals = Goals()
    detail = f"median of {args.rounds} interleaved rounds"
    host_cpu = paired("host", lambda r: r[1] + r[2])
    goals.check(f"{SERVERS} servers, host / bare SDK (CPU)", host_cpu, GOAL_RATIO, "x", detail)
    wall_label = f"{SERVERS} servers, host / bare SDK (wall)"
    host_wall = paired("host", lambda r: r[0])
    if busy:
        print(f"  {wall_label:<52}{host_wall:>11.2f}x   reported: the machine is loaded")
    else:
        goals.check(wall_label, host_wall, GOAL_RATIO, "x", detail)
    if profiler is not None:
        from stalls import profile_report

        print(profile_report(profiler))
    goals.exit()


if __name__ == "__main__":
    main()
