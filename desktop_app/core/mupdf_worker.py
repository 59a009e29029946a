"""MuPDF work with a time budget, in a worker process (`mupdf_process`), for the viewer and the model.

A small PDF can hold a page whose drawing takes minutes (a 219 KB file whose content stream
expands to ~90 MB of vectors). Every page-level request (display list, render, text, search),
and every image shrunk for a model, therefore runs in a separate process, and waits at most
its budget: past it the process is ended, the request fails with `PageTooHeavy`, and the next
request starts a fresh process. A budget of None waits as long as it takes ("Render anyway");
`abort` ends that wait at once.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import logging
import queue
import subprocess
import threading
import time
import weakref
from collections.abc import Callable
from typing import IO, Any, Final, TypeVar

from desktop_app.core.mupdf_process import DOCUMENTS
from desktop_app.core.pipe_messages import read_message, start_worker, write_message

PAGE_BUDGET_S: Final = 3.0
"""How long one page may take to draw or to read, in the viewer and for the model alike."""
START_TIMEOUT_S: Final = 60.0
MUPDF_WORKER_FLAG: Final = "--mupdf-worker"

log = logging.getLogger(__name__)
_workers: weakref.WeakSet[MupdfWorker] = weakref.WeakSet()
T = TypeVar("T")
_keys = itertools.count(1)


class MupdfWorkError(RuntimeError):
    """The PDF engine could not do a request (a damaged page, or the worker stopped)."""


class PageTooHeavy(MupdfWorkError):
    """The page did not finish within its budget."""

    def __init__(self, page: int, budget: float) -> None:
        super().__init__(f"page {page + 1} takes more than {budget:g} s to draw")
        self.page = page
        self.budget = budget


def new_document_key() -> str:
    """A name for one document's bytes in a worker (documents are sent once per worker process)."""
    return f"doc-{next(_keys)}"


class MupdfWorker:
    """One worker process, started on first use; requests are answered one at a time, in order.

    Requests wait in a thread of their own (not the shared default pool): one that takes long
    ("Render anyway") must not hold up the rest of the app's background work. The thread is a
    daemon, so quitting never waits for a page still being drawn. It is also the only thread that
    starts the process: the process dies with the thread that started it (`die_with_the_app`), and
    this one lives until `close`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._runner: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[Any] = queue.Queue()
        self._opened: list[str] = []
        """Documents the current process has, oldest first, as it counts them."""
        self._ended = False
        """Set by `abort`: the process is being killed (it may not be dead yet)."""
        self._epoch = 0
        """Counts `abort` calls: a request made before the latest one is dropped, sent or not."""
        _workers.add(self)

    @property
    def running(self) -> bool:
        """Whether a process is up and has said it is ready."""
        process = self._process
        return process is not None and process.poll() is None and not self._ended

    def start_soon(self) -> None:
        """Start the process in the background, so the first page does not wait for it."""
        self._submit(self._warm)

    def _warm(self) -> None:
        with self._lock:
            self._ensure_started()

    async def request(
        self, key: str, data: bytes, request: dict[str, Any], *, page: int, budget: float | None
    ) -> dict[str, Any]:
        """Run one request on document `key` (its bytes are `data`) off the event loop.

        Cancelling the caller drops a request that has not started; one that has runs to its end.
        """
        epoch = self._epoch
        return await self._in_thread(lambda: self._request(key, data, request, page=page, budget=budget, epoch=epoch))

    def _request(
        self, key: str, data: bytes, request: dict[str, Any], *, page: int, budget: float | None, epoch: int
    ) -> dict[str, Any]:
        with self._lock:
            process = self._ensure_started()
            if epoch != self._epoch:
                raise MupdfWorkError("the request was withdrawn")
            if key and key not in self._opened:
                self._exchange(process, {"op": "open", "key": key, "data": data}, page, None)
                self._opened = [*self._opened, key][-DOCUMENTS:]
            return self._exchange(process, {**request, "key": key, "page": page}, page, budget)

    async def task(self, request: dict[str, Any], *, budget: float) -> dict[str, Any]:
        """A request that needs no document (an image to shrink); `PageTooHeavy` past the budget."""
        return await self.request("", b"", request, page=0, budget=budget)

    async def forget(self, key: str) -> None:
        """Let the process drop a document nobody will ask about again."""
        await self._in_thread(lambda: self._forget(key))

    def _forget(self, key: str) -> None:
        with self._lock:
            process = self._process
            if key in self._opened and process is not None and process.poll() is None and not self._ended:
                self._opened.remove(key)
                self._exchange(process, {"op": "close", "key": key}, 0, None)

    def abort(self) -> None:
        """End the process now: a request in progress fails, the next one starts a new process."""
        self._epoch += 1
        process = self._process
        if process is not None and process.poll() is None:
            self._ended = True
            process.kill()

    def close(self) -> None:
        """End the process and the thread (a later request starts both again)."""
        self.abort()
        self._jobs.put(None)
        self._runner = None
        process = self._process
        if process is not None:
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()

    async def _in_thread(self, work: Callable[[], T]) -> T:
        """`work()` in this worker's thread, after the requests before it; cancelling drops it if not begun."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def job() -> None:
            if future.cancelled():
                return
            try:
                result = work()
            except BaseException as exc:  # handed to the awaiting task, whatever it is
                _hand_over(loop, future, None, exc)
            else:
                _hand_over(loop, future, result, None)

        self._submit(job)
        return await future

    def _submit(self, job: Callable[[], None]) -> None:
        if self._runner is None or not self._runner.is_alive():
            self._jobs = queue.Queue()
            self._runner = threading.Thread(target=_run_jobs, args=(self._jobs,), name="mupdf-worker", daemon=True)
            self._runner.start()
        self._jobs.put(job)

    # -- the process -----------------------------------------------------------------------

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and not self._ended and self._process.poll() is None:
            return self._process
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        self._ended = False
        self._opened.clear()
        replies: queue.Queue[Any] = queue.Queue()
        self._replies = replies
        process = start_worker(MUPDF_WORKER_FLAG, "desktop_app.core.mupdf_process")
        assert process.stdout is not None
        threading.Thread(target=_pump, args=(process.stdout, replies), name="mupdf-worker-replies", daemon=True).start()
        ready = self._wait(process, replies, START_TIMEOUT_S)
        if ready is None or not ready.get("ready"):
            process.kill()
            process.wait()
            raise MupdfWorkError("the PDF engine did not start")
        self._process = process
        return process

    def _exchange(
        self, process: subprocess.Popen[bytes], request: dict[str, Any], page: int, budget: float | None
    ) -> dict[str, Any]:
        assert process.stdin is not None
        try:
            write_message(process.stdin, request)
        except (BrokenPipeError, OSError):
            raise MupdfWorkError("the PDF engine stopped") from None
        reply = self._wait(process, self._replies, budget)
        if reply is None:
            if process.poll() is None and not self._ended:  # still working: over budget
                process.kill()
                process.wait()
                raise PageTooHeavy(page, budget or 0.0)
            raise MupdfWorkError(f"the PDF engine stopped while reading page {page + 1}")
        if "error" in reply:
            raise MupdfWorkError(str(reply["error"]))
        reply_dict: dict[str, Any] = reply
        return reply_dict

    @staticmethod
    def _wait(process: subprocess.Popen[bytes], replies: queue.Queue[Any], budget: float | None) -> Any:
        """The next reply; None when the budget ran out or the process ended first."""
        deadline = None if budget is None else time.monotonic() + budget
        while True:
            timeout = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            if timeout <= 0:
                return None
            try:
                return replies.get(timeout=timeout)
            except queue.Empty:
                if process.poll() is not None and replies.empty():
                    return None


def _run_jobs(jobs: queue.Queue[Callable[[], None] | None]) -> None:
    """The worker's thread: runs jobs in order until `close` sends None."""
    while (job := jobs.get()) is not None:
        try:
            job()
        except Exception:
            log.debug("a PDF worker job failed", exc_info=True)


def _hand_over(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any, error: BaseException | None
) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
        loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _pump(stream: IO[bytes], replies: queue.Queue[Any]) -> None:
    """Read replies in a thread, so waiting for one can have a deadline on every platform."""
    try:
        while (message := read_message(stream)) is not None:
            replies.put(message)
    except (OSError, ValueError, EOFError):
        pass  # the process was ended under us
    replies.put(None)


@atexit.register
def close_all_workers() -> None:
    """No worker outlives the app."""
    for worker in list(_workers):
        worker.close()
