"""A hostile stdio MCP server: its tool `probe` tries what a compromised package would, and says what worked.

Each attempt is reported as `"ok: …"` or `"denied: …"`, so a test sees every result, not just the first
failure: reading files (keys, the app's own folders, anything it is told), writing files, connecting
to a TCP port on 127.0.0.1, reading a file through `/proc/<pid>/root` of every process it can see,
reading a file from a child process (children must stay confined too), and fetching URLs the way most
programs do, through the proxy the environment names (`urllib` honours `HTTP_PROXY` and `HTTPS_PROXY`).
With `--write-at-start PATH` it first writes PATH, and exits if that is refused (a server whose start needs
a place the sandbox does not allow).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from mcp.server.mcpserver import MCPServer

CONNECT_TIMEOUT_S = 3.0


def _read(path: str) -> str:
    try:
        return "ok: " + Path(path).read_text(encoding="utf-8", errors="replace")[:200]
    except OSError as exc:
        return f"denied: {exc}"


def _write(path: str) -> str:
    try:
        Path(path).write_text("written by the probe", encoding="utf-8")
    except OSError as exc:
        return f"denied: {exc}"
    return "ok: written"


def _connect(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=CONNECT_TIMEOUT_S) as conn:
            return "ok: " + conn.recv(64).decode("utf-8", "replace")
    except OSError as exc:
        return f"denied: {exc}"


def _through_proc(path: str) -> str:
    """The escape a sandbox sharing the PID namespace leaves open: another process's root."""
    seen = [entry for entry in os.listdir("/proc") if entry.isdigit() and int(entry) != os.getpid()]
    for pid in seen:
        result = _read(f"/proc/{pid}/root{path}")
        if result.startswith("ok"):
            return f"{result} (through pid {pid})"
    return f"denied: no process's root shows it ({len(seen)} processes seen)"


def _from_child(path: str) -> str:
    code = "import sys, pathlib; print(pathlib.Path(sys.argv[1]).read_text()[:200])"
    done = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=False)
    return "ok: " + done.stdout if done.returncode == 0 else "denied: " + done.stderr.strip()[-200:]


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=CONNECT_TIMEOUT_S) as answer:
            status: int = answer.status
            body: bytes = answer.read(200)
            return f"ok: {status} " + body.decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return f"denied: {exc.code} " + exc.read(300).decode("utf-8", "replace")
    except (OSError, ValueError) as exc:
        return f"denied: {exc}"


def fetch(urls: list[str], child_url: str | None = None) -> str:
    """Fetch each URL through the environment's proxy settings (and `child_url` from a child process); JSON of
    what happened, with the proxy used."""
    report = {url: _fetch(url) for url in urls}
    report["proxy"] = os.environ.get("HTTP_PROXY", "none")
    if child_url is not None:
        code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import sandbox_probe_server as s; "
        code += "print(s._fetch(sys.argv[1]))"
        done = subprocess.run([sys.executable, "-c", code, child_url], capture_output=True, text=True, check=False)
        report["child"] = done.stdout.strip() or done.stderr.strip()[-300:]
    return json.dumps(report)


def probe(
    read: list[str] | None = None,
    write: list[str] | None = None,
    connect: int | None = None,
    proc_root: str | None = None,
    child_read: str | None = None,
) -> str:
    """Try each thing asked; JSON of what happened, keyed by what was tried."""
    report: dict[str, str] = {}
    for path in read or []:
        report[f"read {path}"] = _read(path)
    for path in write or []:
        report[f"write {path}"] = _write(path)
    if connect is not None:
        report["connect"] = _connect(connect)
    if proc_root is not None:
        report["proc root"] = _through_proc(proc_root)
    if child_read is not None:
        report["child read"] = _from_child(child_read)
    return json.dumps(report)


def write_at_start(argv: list[str]) -> None:
    """`--write-at-start PATH`: write PATH before serving, and exit saying why (as Python does) if refused."""
    if "--write-at-start" not in argv:
        return
    path = argv[argv.index("--write-at-start") + 1]
    try:
        Path(path).write_text("written at start", encoding="utf-8")
    except OSError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


def main() -> None:
    write_at_start(sys.argv[1:])
    server = MCPServer("sandbox-probe")
    server.tool()(probe)
    server.tool()(fetch)
    server.run()


if __name__ == "__main__":
    main()
