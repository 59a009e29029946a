"""The scripted model (tests/llm_server.py) in a process of its own, as a real provider is.

In the bench's own process its server thread competes with the window for the interpreter
while it streams, so the event loop's stalls would include the provider's work. The parent
writes one JSON line (`chunks`, `delay`, `usage`) to stdin; this prints `URL <base>` and serves
until stdin closes, then prints `BODIES <json>`: the request bodies it received.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class ProviderProcess:
    """A scripted provider in a child process, answering one queued reply."""

    def __init__(self, chunks: list[str], delay: float, usage: tuple[int, int]) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps({"chunks": chunks, "delay": delay, "usage": usage}) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line.startswith("URL "):
            self._process.kill()
            raise RuntimeError(f"the scripted provider did not start: {line!r}")
        self.url = line.removeprefix("URL ").strip()
        self.bodies: list[dict[str, Any]] = []

    def close(self) -> None:
        """Stop the provider and read the request bodies it received."""
        out, _ = self._process.communicate(timeout=30)
        for line in out.splitlines():
            if line.startswith("BODIES "):
                self.bodies = json.loads(line.removeprefix("BODIES "))


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.llm_server import ScriptedLLM, text

    script = json.loads(sys.stdin.readline())
    with ScriptedLLM() as llm:
        llm.queue(text(*script["chunks"], delay=script["delay"], usage=tuple(script["usage"])))
        print(f"URL {llm.url}", flush=True)
        sys.stdin.read()  # until the bench closes our stdin
        print("BODIES " + json.dumps(llm.bodies()), flush=True)


if __name__ == "__main__":
    main()
