"""Event-loop stalls: a 1 ms Qt ticker, a stack sampler that names the code a stall was in, cProfile."""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final


class StallMonitor:
    """A 1 ms Qt timer; a gap between its ticks longer than that is an event-loop stall.

    Every gap over `keep_ms` is kept with its start and end, so stalls can be attributed to the
    phase they began in and to what overlapped them (a re-render, a garbage collection), and with
    the CPU time the event loop's thread spent in it: on a shared, loaded machine a stall's wall
    time grows with the load, its CPU time is what it costs when the machine is not shared.
    """

    def __init__(self, keep_ms: float = 4.0) -> None:
        self.keep_ms = keep_ms
        self.gaps: list[tuple[float, float]] = []
        self.cpu: dict[float, float] = {}
        """CPU seconds of the loop's thread within each gap, by the gap's start."""
        self.collections: list[tuple[float, float, int]] = []
        self._last = 0.0
        self._last_cpu = 0.0
        self._gc_started = 0.0
        self._timer: Any = None

    def start(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        gc.callbacks.append(self._on_gc)
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        gc.callbacks.remove(self._on_gc)

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if (now - self._last) * 1000 > self.keep_ms:
            self.gaps.append((self._last, now))
            self.cpu[self._last] = cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.collections.append((self._gc_started, time.perf_counter(), info["generation"]))

    def within(self, start: float, end: float) -> list[tuple[float, float]]:
        """Gaps that end in (start, end], longest first.

        A gap belongs to the span it ends in: what marks a span's start (a key pressed, a phase begun, the
        window closed) runs on the event loop, so a gap across that mark is the new span's work."""
        return sorted((g for g in self.gaps if start < g[1] <= end), key=lambda g: g[0] - g[1])

    def worst(self, start: float, end: float) -> tuple[float, float]:
        """(wall, CPU) seconds of the longest stall in [start, end], and the most CPU any stall there took."""
        gaps = self.within(start, end)
        wall = (gaps[0][1] - gaps[0][0]) if gaps else 0.0
        return wall, max((self.cpu.get(g[0], 0.0) for g in gaps), default=0.0)


def loaded() -> bool:
    """More runnable work than cores: wall-clock stalls then measure the sharing, not the app."""
    import os

    return os.getloadavg()[0] > (os.cpu_count() or 1)


class StackSampler:
    """Samples the event loop's stack every 2 ms from a thread (opt-in: the thread competes for the GIL).

    Each sample is "innermost app frame › innermost frame", so a stall that neither a render nor
    a collection explains still says which code of ours led where.
    """

    _IDLE: Final = ("run_forever", "_tick", "_on_gc")

    def __init__(self, root: Path) -> None:
        self.samples: list[tuple[float, str]] = []
        self._root = root
        self._stop = threading.Event()
        self._main = threading.main_thread().ident
        self._ours = (str(root / "desktop_app"), str(root / "resources_ui"))

    def start(self) -> None:
        threading.Thread(target=self._run, name="bench-stack-sampler", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = sys._current_frames().get(self._main)  # type: ignore[arg-type]
            if frame is not None and frame.f_code.co_name not in self._IDLE:
                leaf, ours = frame, None
                while frame is not None and ours is None:
                    if frame.f_code.co_filename.startswith(self._ours):
                        ours = frame
                    frame = frame.f_back
                where = self._name(leaf) if ours in (None, leaf) else f"{self._name(ours)} › {self._name(leaf)}"
                self.samples.append((time.perf_counter(), where))
            del frame
            time.sleep(0.002)

    def _name(self, frame: Any) -> str:
        path = frame.f_code.co_filename
        for marker in ("site-packages/", f"{self._root}/", "/lib/python3."):
            if marker in path:
                path = path.split(marker, 1)[1]
                path = path.split("/", 1)[1] if marker == "/lib/python3." else path
                break
        return f"{path}:{frame.f_lineno} {frame.f_code.co_name}"

    def during(self, start: float, end: float, top: int = 2) -> list[tuple[str, int]]:
        return Counter(where for t, where in self.samples if start <= t <= end).most_common(top)


def profile_report(profiler: Any) -> str:
    import io
    import pstats

    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats(30)
    return out.getvalue()
