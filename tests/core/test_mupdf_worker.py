"""The PDF worker process: budgets end a request at once, and no worker outlives its app."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from desktop_app.core.mupdf_worker import MupdfWorker, MupdfWorkError, PageTooHeavy, new_document_key
from tests.endless_pdf import pdf_with_an_endless_page
from tests.hosting import eventually, live_children
from tests.pdfs import LIGHT_TEXT, pdf_with_pages

ROOT = Path(__file__).resolve().parents[2]
RENDER = {"op": "render", "scale": 1.0}


@pytest.mark.anyio
async def test_a_request_over_budget_ends_at_once_and_the_next_one_works() -> None:
    worker = MupdfWorker()
    heavy, light = new_document_key(), new_document_key()
    try:
        with anyio.fail_after(60):  # the page never ends: only its budget can end the request
            with pytest.raises(PageTooHeavy, match=r"page 1 takes more than 0\.3 s to draw"):
                await worker.request(heavy, pdf_with_an_endless_page(), RENDER, page=0, budget=0.3)
            reply = await worker.request(light, pdf_with_pages(0), {"op": "text"}, page=0, budget=30)
        assert reply["text"].strip() == LIGHT_TEXT.format(number=1)
    finally:
        worker.close()


@pytest.mark.anyio
async def test_abort_ends_an_unbounded_request() -> None:
    worker = MupdfWorker()
    try:
        render = asyncio.ensure_future(
            worker.request(new_document_key(), pdf_with_an_endless_page(), RENDER, page=0, budget=None)
        )
        await eventually(lambda: _busy_child() is not None, timeout=60, what="the worker busy drawing the page")
        assert not render.done()
        worker.abort()
        with anyio.fail_after(60), pytest.raises(MupdfWorkError):
            await render  # the page never ends: only the abort can end the request
    finally:
        worker.close()


def _busy_child() -> int | None:
    """This process's PDF worker once it has spent over half a second of CPU (starting takes less);
    other workers (the tokenizer's) are not it."""
    return next((pid for pid in live_children() if _is_pdf_worker(pid) and _cpu_seconds(pid) > 0.5), None)


def _is_pdf_worker(pid: int) -> bool:
    try:
        return b"mupdf" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


_APP_KILLED_MID_RENDER = textwrap.dedent(
    """
    import asyncio
    from desktop_app.core.mupdf_worker import MupdfWorker, new_document_key
    from tests.endless_pdf import pdf_with_an_endless_page

    async def main():
        worker, endless, key = MupdfWorker(), pdf_with_an_endless_page(), new_document_key()
        await worker.request(key, endless, {"op": "count"}, page=0, budget=60)
        print(worker._process.pid, flush=True)
        await worker.request(key, endless, {"op": "render", "scale": 1.0}, page=0, budget=None)

    asyncio.run(main())
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal is Linux only")
def test_a_worker_busy_with_a_page_dies_with_its_app() -> None:
    app = subprocess.Popen(
        [sys.executable, "-c", _APP_KILLED_MID_RENDER],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert app.stdout is not None
        worker_pid = int(app.stdout.readline())
        _wait_until(lambda: _cpu_seconds(worker_pid) > 0.5, "the worker to be busy drawing")
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait(60)
    _wait_until(lambda: _stat(worker_pid) is None, "the worker to end with its app")


def _wait_until(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _stat(pid: int) -> list[str] | None:
    """The process's /proc fields after its name; None once it is gone (or a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
