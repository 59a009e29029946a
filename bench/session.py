"""Idle memory and the first answer, measured in the real app as a user meets them.

Each run starts the app (`mcp-desk --config …`, an isolated home) in a fresh process with five
stdio servers, one of them listing 10,000 resources, and a scripted local OpenAI-compatible
model (tests/llm_server.py) as its provider. A probe inside the app's process drives the window:

- typed: nothing happens for 25 s after the start; the resident memory (RSS) of the app process
  is taken then, before the model library is loaded. Then the user types a question for 5 s
  (one character every ~100 ms) and sends it: send → first streamed token is measured, and the
  RSS again 25 s after the turn has finished (idle again: the tokenizer is given back after 20 s).

A question sent the moment the window is on screen is bench/cold_send.py's.

The time from the first key to the model library's import finishing is reported too, with the
process's CPU time meanwhile: it is what a first answer sent too soon waits for.

The provider's own latency (a bare HTTP client's request → first streamed token against the same
scripted model) is measured in this process and subtracted.

    python bench/session.py [--runs N]

Goals: idle RSS ≤ 250 MB without the model library loaded, ≤ 350 MB after the first turn; first
token ≤ 150 ms over the provider's latency when the user typed for 5 s; no process left behind.
Exits 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from typing import Any, Final

from harness import Goals, app_home, fixture_server, machine_load, median, paginated_server, run_probe, spread

RUNS: Final = 3
IDLE_AT: Final = 25.0
TYPE_FOR: Final = 5.0
GOAL_IDLE_MB: Final = 250.0
GOAL_TURN_MB: Final = 350.0
GOAL_FIRST_TOKEN_MS: Final = 150.0
MODEL: Final = "openai/gpt-4.1-mini"
QUESTION: Final = "Which documents describe the release plan? Summarise them."
HEAVY: Final = ("litellm", "pymupdf", "pygments", "markdown", "openai", "tiktoken", "PySide6.QtWebEngineCore")

PROBE: Final = """
import time
STARTED = time.monotonic()
import gc, json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

config, idle_at, type_for, question, resources = sys.argv[1:6]
idle_at, type_for, resources = float(idle_at), float(type_for), int(resources)
heavy = sys.argv[6].split(",")
app = QApplication([sys.argv[0]])
marks = {}
state = {"typed": 0}


def now():
    return time.monotonic() - STARTED


def rss():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) / 1024 for l in status if l.startswith("VmRSS:"))


def main_window():
    return next((w for w in app.topLevelWidgets() if type(w).__name__ == "MainWindow" and w.filled), None)


def hook(window):
    view = window.conversation
    apply = view.apply

    def observed(event):
        kind = type(event).__name__
        if kind == "TextDelta" and "first_token" not in marks:
            marks["first_token"] = now()
        elif kind == "TurnFinished":
            marks["finished"] = now()
            marks["reason"] = event.reason
        apply(event)

    view.apply = observed


def send(window):
    marks["sent"] = now()
    marks["litellm_at_send"] = "litellm" in sys.modules
    window.composer.send()


def step():
    window = main_window()
    if window is None:
        return
    t = now()
    host = window.bridge.host
    if "shown" not in marks:
        marks["shown"] = t
        hook(window)
    llm = sys.modules.get("desktop_app.core.model.llm")
    if "library_ready" not in marks and llm is not None and llm._module is not None:
        marks["library_ready"] = t
        marks["library_cpu"] = time.process_time() - marks.get("typing_cpu", 0.0)
    listed = sum(len(s.resources) for s in host.catalog.servers.values())
    if "ready" not in marks and host.ready_count() == len(host.connections) and listed >= resources:
        marks["ready"] = t
    if "idle_rss" not in marks:
        if t >= idle_at and ("ready" in marks or t >= idle_at + 60):
            marks["idle_at"] = t
            marks["idle_rss"] = rss()
            marks["idle_modules"] = [m for m in heavy if m in sys.modules]
            marks["typing"] = t
            marks["typing_cpu"] = time.process_time()
        return
    if "sent" not in marks:
        due = int((t - marks["typing"]) / type_for * len(question)) + 1
        while state["typed"] < min(due, len(question)):
            window.composer.editor.insertPlainText(question[state["typed"]])
            state["typed"] += 1
        if t - marks["typing"] >= type_for:
            send(window)
        return
    if "finished" in marks and "turn_rss" not in marks and t - marks["finished"] >= idle_at:
        marks["turn_rss"] = rss()
        marks["turn_modules"] = [m for m in heavy if m in sys.modules]
        print("BENCH " + json.dumps(marks), flush=True)
        window.close()  # the app's own shutdown: servers stopped, then the process exits


timer = QTimer()
timer.setInterval(20)
timer.timeout.connect(step)
timer.start()
from desktop_app.__main__ import main

sys.exit(main(["--config", config]))
"""


def answer() -> list[str]:
    """About 300 tokens of markdown with a code block, in 40 chunks."""
    body = (
        "The release plan is described in three documents. **paged://resource/0042** sets the freeze date, "
        "**paged://resource/1234** lists the checks each area runs, and **paged://resource/4321** says who "
        "signs off. They agree except on the freeze, which the newest note moves by a week.\n\n"
        "- Freeze: one week later than planned\n- Checks: dry run, rollback, smoke\n- Sign-off: the release manager\n\n"
        "```bash\nmake rehearse AREA=release-tooling && make smoke ENV=staging\n```\n\n"
        "If the rehearsal passes this week, the freeze can stay where the newest note puts it. "
    ) * 2
    cut = [len(body) * i // 40 for i in range(41)]
    return [body[a:b] for a, b in itertools.pairwise(cut)]


def provider_latency(url: str, llm: Any, rounds: int = 5) -> float:
    """A bare HTTP client's request → first streamed text chunk against the scripted model (median)."""
    import httpx

    from tests.llm_server import text

    samples: list[float] = []
    seen: list[None] = []
    body = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with httpx.Client(timeout=30) as client:
        for _ in range(rounds + 1):
            llm.queue(text(*answer(), delay=0.005))
            started = time.perf_counter()
            with client.stream("POST", f"{url}/chat/completions", json=body) as response:
                for line in response.iter_lines():
                    if '"content": "' in line and '"content": ""' not in line and len(samples) < len(seen) + 1:
                        samples.append(time.perf_counter() - started)
            seen.append(None)
    return median(samples[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs (default {RUNS})")
    args = parser.parse_args()

    from desktop_app.core.app_settings import AppSettings
    from desktop_app.core.model.settings import ModelSettings
    from tests.hosting import live_children
    from tests.llm_server import ScriptedLLM, text

    servers = {"big": paginated_server(10_000), **{f"small-{i}": fixture_server() for i in range(1, 5)}}
    typed: list[dict[str, Any]] = []
    print(f"Idle memory and first answer: the real app, 5 stdio servers, 10,000 resources ({machine_load()})")
    with ScriptedLLM() as llm:
        latency = provider_latency(llm.url, llm)
        settings = AppSettings(ModelSettings(MODEL, api_base=llm.url))
        for _ in range(args.runs):
            llm.queue(text(*answer(), delay=0.005))
            with app_home(servers, settings) as (config, env):
                probe_args = [str(config), str(IDLE_AT), str(TYPE_FOR), QUESTION, "10000", ",".join(HEAVY)]
                marks = run_probe(PROBE, env, timeout=240, args=probe_args)
            marks["leftovers"] = len(live_children())
            typed.append(marks)
    goals = Goals()
    idle = [m["idle_rss"] for m in typed]
    turn = [m["turn_rss"] for m in typed]
    first = [m["first_token"] - m["sent"] for m in typed]
    print(f"  provider latency (bare HTTP client → first token)     {latency * 1000:8.0f} ms")
    print(f"  servers ready after start (typed runs)                {median([m['ready'] for m in typed]):8.1f} s")
    ready = [m["library_ready"] - m["typing"] for m in typed]
    cpu = [m["library_cpu"] for m in typed]
    print(
        f"  model library imported after the first key (typed)   {median(ready):8.1f} s"
        f"   the process's CPU meanwhile {median(cpu):.1f} s (the UI's included); {spread(ready, unit=' s')}"
    )
    print(f"  heavy modules at idle: {sorted(set().union(*(m['idle_modules'] for m in typed))) or 'none'}")
    print(f"  heavy modules after the turn: {sorted(set().union(*(m['turn_modules'] for m in typed)))}")
    goals.check("idle RSS 25 s after start, model library not loaded", median(idle), GOAL_IDLE_MB, "MB", spread(idle))
    goals.require("model library not loaded at idle", not any("litellm" in m["idle_modules"] for m in typed))
    goals.check("RSS after the first completed turn", median(turn), GOAL_TURN_MB, "MB", spread(turn))
    over = [(f - latency) * 1000 for f in first]
    goals.check("first token over the provider's, typed for 5 s", median(over), GOAL_FIRST_TOKEN_MS, "ms", spread(over))
    finished = all(m.get("reason") == "stop" for m in typed)
    goals.require("every turn answered", finished, json.dumps([m.get("reason") for m in typed]))
    leftovers = sum(m["leftovers"] for m in typed)
    exits = [m["exit_code"] for m in typed]
    goals.require("no process left behind, every app exited 0", leftovers == 0 and not any(exits), f"exits {exits}")
    goals.exit()


if __name__ == "__main__":
    main()
