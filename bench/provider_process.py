"""The scripted model (tests/llm_server.py) in a process of its own, as a real provider is.

In the bench's own process its server thread competes with the window for the interpreter
while it streams, so the event loop's stalls would include the provider's work. The parent
writes one JSON line to stdin: one reply (`chunks`, `delay`, `usage`) or a script of them
(`replies`: each with `text` chunks, `tool_calls` as `[name, arguments, id]`, `delay`), and
`keep` (how many request bodies to keep: a long session's requests grow with its history). This
prints `URL <base>` and serves until stdin closes, then prints `BODIES <json>`: the bodies kept.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class ProviderProcess:
    """A scripted provider in a child process, answering one queued reply."""

    def __init__(
        self,
        chunks: list[str] | None = None,
        delay: float = 0.0,
        usage: tuple[int, int] = (11, 7),
        *,
        replies: list[dict[str, Any]] | None = None,
        keep: int | None = None,
    ) -> None:
        script: dict[str, Any] = {"chunks": chunks or [], "delay": delay, "usage": usage, "keep": keep}
        if replies is not None:
            script["replies"] = replies
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(script) + "\n")
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


def reply(text: Sequence[str] = (), tool_calls: Sequence[Sequence[Any]] = (), delay: float = 0.0) -> dict[str, Any]:
    """One scripted answer: streamed text chunks and/or tool calls (`[name, arguments, id]`)."""
    return {"text": list(text), "tool_calls": [list(call) for call in tool_calls], "delay": delay}


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from collections import deque

    from tests.llm_server import Reply, ScriptedLLM, ToolCall, text

    script = json.loads(sys.stdin.readline())
    with ScriptedLLM() as llm:
        if script.get("keep") is not None:
            llm.requests = deque(maxlen=max(1, script["keep"]))  # type: ignore[assignment]
        if "replies" in script:
            for entry in script["replies"]:
                calls = tuple(ToolCall(name, arguments, call_id) for name, arguments, call_id in entry["tool_calls"])
                llm.queue(Reply(text=tuple(entry["text"]), tool_calls=calls, delay=entry["delay"]))
        else:
            llm.queue(text(*script["chunks"], delay=script["delay"], usage=tuple(script["usage"])))
        print(f"URL {llm.url}", flush=True)
        sys.stdin.read()  # until the bench closes our stdin
        print("BODIES " + json.dumps(llm.bodies()), flush=True)


if __name__ == "__main__":
    main()
