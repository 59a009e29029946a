"""What the benchmarks share: isolated app homes, probe processes, goals printed and checked.

A bench that measures the real app starts it in a fresh process with a *probe*: a short script
that runs `desktop_app.__main__.main` and drives or observes the window from a Qt timer in that
same process, then prints one `BENCH {json}` line. Runs of two kinds alternate, so drift in the
machine's load affects both alike, and the figures quoted are medians.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGINATED: Final = ROOT / "tests" / "servers" / "paginated_server.py"
FIXTURE: Final = ROOT / "tests" / "servers" / "fixture_server.py"


def paginated_server(resources: int, *, tools: int = 50, per_page: int = 500, **sizes: int) -> dict[str, Any]:
    """A `servers.json` entry for a stdio server listing `resources` resources (and `tools` tools)."""
    args = [str(PAGINATED), "--pages", str(max(1, resources // per_page)), "--per-page", str(per_page)]
    args += ["--tools", str(tools)]
    for kind in ("templates", "prompts"):
        args += [f"--{kind}", str(sizes.get(kind, 10))]
    return {"command": sys.executable, "args": args, "timeout": 120}


def fixture_server() -> dict[str, Any]:
    """A small, ordinary server: a few resources, templates, prompts and tools."""
    return {"command": sys.executable, "args": [str(FIXTURE)], "timeout": 120}


def tokenizer_cache(folder: Path) -> Path:
    """`folder`'s `mcp-desk/tokenizers`, holding what the tokenizer's process keeps after its first start
    (its encodings read once from tiktoken's files: about 0.3 s of CPU that a first start ever pays)."""
    found = folder / "mcp-desk" / "tokenizers"
    if not found.is_dir():
        env = {**os.environ, "XDG_CACHE_HOME": str(folder)}
        load = "from desktop_app.core.chat.token_process import load_encoding as l; l('o200k_base'); l('cl100k_base')"
        subprocess.run([sys.executable, "-c", load], cwd=ROOT, env=env, check=True, timeout=120)
    return found


@contextmanager
def app_home(
    servers: dict[str, dict[str, Any]], settings: Any | None = None, *, tokenizers: Path | None = None
) -> Iterator[tuple[Path, dict[str, str]]]:
    """A throw-away config and data home with `servers` configured; yields it and the environment to run in.

    `tokenizers` (a `tokenizer_cache`): the home's cache holds them, as after the app's first start."""
    from desktop_app.core.app_settings import save_settings

    home = Path(tempfile.mkdtemp(prefix="mcp-desk-bench-"))
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(home / "config")
    env["XDG_DATA_HOME"] = str(home / "data")
    env["XDG_CACHE_HOME"] = str(home / "cache")
    if tokenizers is not None:
        shutil.copytree(tokenizers, home / "cache" / "mcp-desk" / "tokenizers")
    env.setdefault("OPENAI_API_KEY", "sk-bench")
    config = home / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    if settings is not None:
        path = home / "config" / "mcp-desk" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        save_settings(path, settings)
    try:
        yield config, env
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_probe(script: str, env: dict[str, str], timeout: float = 180.0, args: Sequence[str] = ()) -> dict[str, Any]:
    """Run `script` in a fresh interpreter; return what its `BENCH` line says (plus its exit code)."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"the probe printed no figures (exit {done.returncode}):\n{done.stderr[-3000:]}")
    marks: dict[str, Any] = json.loads(line.removeprefix("BENCH "))
    marks["exit_code"] = done.returncode
    return marks


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process, in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def reference_work_ms() -> float:
    """CPU milliseconds of a fixed piece of Python work (the best of three): how fast a core is now.

    On a shared virtual machine the same code runs 20 % faster or slower from one hour to the next, the
    load average flat; figures from runs whose reference differs by that much are not comparable."""
    import json
    import time

    data: list[dict[str, Any]] = [
        {"id": i, "name": f"resource-{i:05d}", "tags": ["a", "b", str(i % 7)]} for i in range(20_000)
    ]
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        json.loads(json.dumps(data))
        sorted(data, key=lambda item: (item["tags"][2], item["name"]))
        best = min(best, time.process_time() - started)
    return best * 1000


def machine_load() -> str:
    """The 1-minute load average against the core count: benches on a busy machine say so; and
    whether the venv holds compiled bytecode (uv installs without it, and with
    PYTHONDONTWRITEBYTECODE set every start compiles the SDK, pydantic and litellm from source)."""
    import importlib.util

    one, five, _ = os.getloadavg()
    load = f"load {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores; reference work {reference_work_ms():.0f} ms"
    for package in ("mcp", "litellm"):  # litellm's bytecode is only written once it is first imported
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin and not Path(importlib.util.cache_from_source(spec.origin)).exists():
            load += f"; NO COMPILED BYTECODE for {package}: every start compiles (python -m compileall <site-packages>)"
            break
    return load


@dataclass
class Goals:
    """Prints each figure against its goal and remembers which were missed."""

    missed: list[str] = field(default_factory=list)

    def check(self, label: str, value: float, goal: float, unit: str, detail: str = "") -> bool:
        ok = value <= goal
        shown = f"{value:,.2f}x" if unit == "x" else f"{value:,.0f} {unit}"
        limit = f"{goal:,.2f}x" if unit == "x" else f"{goal:,.0f} {unit}"
        print(f"  {label:<52}{shown:>12}   goal ≤ {limit:<9} {'ok' if ok else 'MISSED'}  {detail}".rstrip())
        if not ok:
            self.missed.append(label)
        return ok

    def require(self, label: str, ok: bool, detail: str = "") -> bool:
        print(f"  {label:<52}{'yes' if ok else 'no':>12}   {'ok' if ok else 'MISSED'}  {detail}".rstrip())
        if not ok:
            self.missed.append(label)
        return ok

    def exit(self) -> None:
        if self.missed:
            print(f"\nMissed: {'; '.join(self.missed)}")
        sys.exit(1 if self.missed else 0)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def spread(values: Sequence[float], scale: float = 1.0, unit: str = "") -> str:
    """`min–max` of the runs, to show how noisy the machine was."""
    if not values:
        return ""
    return f"runs {min(values) * scale:,.0f}–{max(values) * scale:,.0f}{unit}"


def children_cpu(marker: bytes) -> list[float]:
    """CPU seconds used so far by each child of this process whose command line holds `marker`
    (the servers a bench started), read from /proc."""
    me, found = str(os.getpid()), []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            command = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if stat[1] == me and marker in command:
            found.append((int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK"))
    return found
