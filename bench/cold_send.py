"""A message sent at once: the user clicks into the message box the moment the window is on screen,
types a question and sends it (Ctrl+Enter). How long until the request leaves for the provider?

Each run starts the real app (`mcp-desk --config …`, an isolated home holding what a previous start
left in its cache: the tokenizer's encodings) in a fresh process, with the demo server alone and with
five stdio servers of which one lists 10,000 resources; runs of the two kinds alternate. The model
is a scripted OpenAI-compatible server on 127.0.0.1 in this process, which notes when each request
arrives. A probe inside the app's process marks the first paint of the window, when the message box
can take keys (the panes are in), the send, and on the way: the model library's import begun and
done, its first (offline) call done, the catalog listed, the system prompt built, and the first
streamed token shown.

    python bench/cold_send.py [--runs N]

The CPU time the app's process spends from the send to the first token is printed too, with the
model library's share (its import and first call, in its own thread) and the system prompt's builds:
on a loaded machine the wall figures stretch, the CPU figures much less.

Goals (issue 42): the request leaves ≤ 3.0 s after the window's first paint with the demo server and
≤ 4.0 s with five servers and 10,000 resources (LiteLLM's import alone is about 1.8 s of one core);
the first token is shown ≤ 100 ms after the provider's own latency (a bare HTTP client's request →
first token, measured here). Idle memory with nothing typed is bench/session.py's. Exits 1 when missed.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from harness import (
    Goals,
    app_home,
    fixture_server,
    machine_load,
    median,
    paginated_server,
    run_probe,
    spread,
    tokenizer_cache,
)
from session import answer, provider_latency

RUNS: Final = 3
GOAL_LEAVES_S: Final = {"the demo server": 3.0, "5 servers, 10,000 resources": 4.0}
GOAL_FIRST_TOKEN_MS: Final = 100.0
MODEL: Final = "openai/gpt-4.1-mini"
QUESTION: Final = "What is in the release plan?"

PROBE: Final = """
import time
import json, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

config, question, resources = sys.argv[1], sys.argv[2], int(sys.argv[3])
marks = {}


def mark(name):
    marks.setdefault(name, time.time())


class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            mark("painted")
        return False


import threading
import desktop_app.core.model.llm as llm
from desktop_app.core.chat.context import ContextBuilder

ready_litellm = llm.ready_litellm


def timed_ready():
    # Patched before the window's modules import it: the warm-up's thread and the engine's both call this.
    started = time.thread_time()
    try:
        return ready_litellm()
    finally:
        marks["library_cpu"] = max(marks.get("library_cpu", 0.0), time.thread_time() - started)


llm.ready_litellm = timed_ready
build = ContextBuilder.build


def timed_build(self, *args, **kwargs):
    started = time.thread_time()
    try:
        return build(self, *args, **kwargs)
    finally:
        if "sent" in marks and "first_token" not in marks:
            with cpu_lock:
                marks["prompt_cpu"] = marks.get("prompt_cpu", 0.0) + time.thread_time() - started


cpu_lock = threading.Lock()
ContextBuilder.build = timed_build

from desktop_app.ui.shell.main_window import MainWindow

original_show = MainWindow.show_painted


def show_painted(self, *args, **kwargs):
    # The app's QApplication exists now: the probe's timer starts with the window.
    self._bench_paint = FirstPaint()
    self.installEventFilter(self._bench_paint)
    self._bench_timer = QTimer(self)
    self._bench_timer.setInterval(5)
    self._bench_timer.timeout.connect(step)
    self._bench_timer.start()
    return original_show(self, *args, **kwargs)


MainWindow.show_painted = show_painted


def timed(cls, name, label):
    original = getattr(cls, name)

    async def wrapper(self, *args, **kwargs):
        if "sent" in marks:
            mark(label + "_begun")
        try:
            return await original(self, *args, **kwargs)
        finally:
            if "sent" in marks:
                mark(label + "_done")

    setattr(cls, name, wrapper)


def hook(window):
    view = window.conversation
    apply = view.apply

    def observed(event):
        kind = type(event).__name__
        if kind == "TextDelta":
            marks.setdefault("cpu_first_token", time.process_time())
            mark("first_token")
        elif kind == "TurnFinished":
            marks["reason"] = event.reason
            mark("finished")
        apply(event)

    view.apply = observed


def step():
    window = next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None)
    if window is None:
        return
    if "litellm" in sys.modules:
        mark("library_begun")
    llm = sys.modules.get("desktop_app.core.model.llm")
    if getattr(llm, "_module", None) is not None:
        mark("library_imported")
    if getattr(llm, "_exercised", False):
        mark("library_ready")
    if window.filled and "sent" not in marks:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from desktop_app.core.chat.engine import ChatEngine

        mark("filled")
        timed(ChatEngine, "system_prompt", "prompt")
        hook(window)
        editor = window.composer.editor
        QTest.mouseClick(editor.viewport(), Qt.MouseButton.LeftButton)
        QTest.keyClicks(editor, question)
        mark("typed")
        QTest.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        marks["cpu_sent"] = time.process_time()
        mark("sent")
    if "sent" in marks:
        host = window.bridge.host
        listed = sum(len(s.resources) for s in host.catalog.servers.values())
        if host.ready_count() == len(host.connections) and listed >= resources:
            mark("catalog")
    if "finished" in marks and "reported" not in marks:
        marks["reported"] = True
        print("BENCH " + json.dumps(marks), flush=True)
        window.close()  # the app's own shutdown: servers stopped, then the process exits


from desktop_app.__main__ import main

sys.exit(main(["--config", config]))
"""

STEPS: Final = (
    ("painted", "filled", "window painted → message box takes keys (panes in)"),
    ("filled", "sent", "the question typed and sent"),
    ("sent", "library_begun", "send → model library import begun"),
    ("library_begun", "library_imported", "  its import"),
    ("library_imported", "library_ready", "  its first (offline) call"),
    ("sent", "catalog", "send → catalog listed"),
    ("prompt_begun", "prompt_done", "system prompt built (catalog → prompt)"),
    ("prompt_done", "left", "prompt built → request left"),
    ("sent", "left", "send → request left"),
)


def stamped_llm() -> Any:
    """The scripted model, noting when each request arrives."""
    from tests.llm_server import ScriptedLLM

    class Stamped(ScriptedLLM):
        arrivals: list[float]

        async def _take(self, request: Any) -> Any:
            self.arrivals.append(time.time())
            return await super()._take(request)

    llm = Stamped()
    llm.arrivals = []
    return llm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs of each configuration (default {RUNS})")
    args = parser.parse_args()

    from desktop_app.core.app_settings import AppSettings
    from desktop_app.core.model.settings import ModelSettings
    from desktop_app.demo_server import demo_server_command
    from tests.hosting import live_children
    from tests.llm_server import text

    command, demo_args = demo_server_command()
    configs = {
        "the demo server": ({"demo": {"command": command, "args": demo_args, "timeout": 120}}, 0),
        "5 servers, 10,000 resources": (
            {"big": paginated_server(10_000), **{f"small-{i}": fixture_server() for i in range(1, 5)}},
            10_000,
        ),
    }
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
    caches = tempfile.TemporaryDirectory(prefix="mcp-desk-bench-cache-")
    tokenizers = tokenizer_cache(Path(caches.name))
    print(f"A message sent at once, the moment the window is on screen ({machine_load()})")
    with stamped_llm() as llm:
        latency = provider_latency(llm.url, llm)
        settings = AppSettings(ModelSettings(MODEL, api_base=llm.url))
        for _ in range(args.runs):
            for name, (servers, resources) in configs.items():
                llm.queue(text(*answer(), delay=0.005))
                llm.arrivals.clear()
                with app_home(servers, settings, tokenizers=tokenizers) as (config, env):
                    marks = run_probe(PROBE, env, timeout=240, args=[str(config), QUESTION, str(resources)])
                if llm.arrivals:
                    marks["left"] = llm.arrivals[0]
                marks["leftovers"] = len(live_children())
                runs[name].append(marks)
    goals = Goals()
    print(f"  provider latency (bare HTTP client → first token)  {latency * 1000:8.0f} ms")
    for name, found in runs.items():
        print(f"  with {name}: median of {len(found)} runs (where the time goes, ms)")
        for start, end, label in STEPS:
            values = [m[end] - m[start] for m in found if start in m and end in m]
            if values:
                print(f"    {label:<54}{median(values) * 1000:8.0f}   {spread(values, 1000)}")
        print("    CPU time of the app's process (ms; wall figures stretch on a loaded machine, CPU much less)")
        for label, values in (
            ("send → first token, all its threads", [m["cpu_first_token"] - m["cpu_sent"] for m in found]),
            ("  the model library's import and first call", [m.get("library_cpu", 0.0) for m in found]),
            ("  the system prompt's builds at the send", [m.get("prompt_cpu", 0.0) for m in found]),
        ):
            print(f"    {label:<54}{median(values) * 1000:8.0f}   {spread(values, 1000)}")
        leaves = [m["left"] - m["painted"] for m in found if "left" in m]
        label = f"request left after first paint ({name})"
        goals.check(label, median(leaves) * 1000, GOAL_LEAVES_S[name] * 1000, "ms", spread(leaves, 1000))
        over = [(m["first_token"] - m["left"] - latency) * 1000 for m in found if "left" in m and "first_token" in m]
        goals.check(f"first token over the provider's ({name})", median(over), GOAL_FIRST_TOKEN_MS, "ms", spread(over))
    print(f"  ({machine_load()} at the end)")
    every = [m for found in runs.values() for m in found]
    reasons = [m.get("reason") for m in every]
    goals.require("every turn answered", all(r == "stop" for r in reasons), json.dumps(reasons))
    exits = [m["exit_code"] for m in every]
    leftovers = sum(m["leftovers"] for m in every)
    goals.require("no process left behind, every app exited 0", leftovers == 0 and not any(exits), f"exits {exits}")
    caches.cleanup()
    goals.exit()


if __name__ == "__main__":
    main()
