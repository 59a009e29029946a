"""Every task the app knows: running, recently ended, and waiting for their server after a restart.

The board is the one place tasks are listed (the Tasks view, the tool cards, `mcp-desk run` read it)
and cancelled. Each server's `TaskRunner` reports to it; a task whose call stopped waiting (the
user stopped the turn, the app quit) stays on the board and in the store, and is followed again
in the background as soon as its server is ready: its result then arrives as a `LateResult`.

One board per host: the host holds it (`ServerHost.tasks`) and hands it to each connection it makes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, Protocol

from desktop_app.core.events import EventBus, ServerStateChanged
from desktop_app.core.server_status import ServerState
from desktop_app.core.tasks.events import LateResult, TaskChanged, TaskEvent
from desktop_app.core.tasks.model import TaskRecord, TaskStatus
from desktop_app.core.tasks.store import TaskStore, waiting

log = logging.getLogger(__name__)

RECENT: Final = 50
"""Ended tasks the board keeps listing."""
NOT_TOLD: Final = (
    "MCP Desk stopped following this task; its server was not connected to be told, so it may still run there."
)

Listener = Callable[[TaskEvent], None]


class ServerTasks(Protocol):
    """What the board needs of a server's task runner."""

    @property
    def name(self) -> str: ...

    def ready(self) -> bool: ...

    async def resume(self, record: TaskRecord) -> None: ...


class TaskBoard:
    """The app's tasks, and who is told when one changes."""

    def __init__(self, store: TaskStore | None = None) -> None:
        self._store = store or TaskStore()
        self._records: dict[tuple[str, str], TaskRecord] = {}
        self._recent: deque[tuple[str, str]] = deque()
        self._cancels: dict[tuple[str, str], Callable[[], None]] = {}
        self._ended: dict[tuple[str, str], asyncio.Event] = {}
        self._runners: dict[str, ServerTasks] = {}
        self._background: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._listeners: list[Listener] = []
        self._load()

    # -- the composition root --------------------------------------------------------------

    def open(self, path: Path, bus: EventBus) -> None:
        """Keep tasks in `path` across restarts; follow waiting ones whenever their server is ready."""
        self._store = TaskStore(path)
        self._load()
        bus.subscribe(ServerStateChanged, self._on_state)
        for runner in list(self._runners.values()):
            if runner.ready():
                self._resume(runner)

    def _load(self) -> None:
        for record in self._store.running():
            if record.key not in self._records:
                self._records[record.key] = waiting(record)

    # -- listeners -------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _tell(self, event: TaskEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a task listener failed on %s", type(event).__name__)

    # -- reading ---------------------------------------------------------------------------

    def tasks(self) -> list[TaskRecord]:
        """Running and waiting tasks, then recently ended ones; the newest first in each."""
        records = sorted(self._records.values(), key=lambda r: r.started, reverse=True)
        return [r for r in records if r.running] + [r for r in records if not r.running]

    def task(self, key: tuple[str, str]) -> TaskRecord | None:
        return self._records.get(key)

    def task_for_call(self, call_id: str) -> TaskRecord | None:
        """The newest task of a chat tool call, if it became one."""
        found = [r for r in self._records.values() if r.call_id == call_id]
        return max(found, key=lambda r: r.started) if found else None

    def late_results(self, conversation: str | None = None) -> list[LateResult]:
        """Results waiting for their conversation (all of them when `conversation` is None)."""
        return [
            late
            for late in self._store.late_results()
            if conversation is None or late.record.conversation == conversation
        ]

    def delivered(self, late: LateResult) -> None:
        """Its conversation has the late result now: the store lets it go."""
        self._store.delivered(late)

    # -- runners ---------------------------------------------------------------------------

    def attach(self, runner: ServerTasks) -> None:
        """`runner` speaks for its server from now on (a reconnected or re-added server brings a new one)."""
        self._runners[runner.name] = runner

    def started(self, record: TaskRecord, cancel: Callable[[], None]) -> None:
        """A runner follows `record`; `cancel` asks it to cancel the task on its server."""
        self._cancels[record.key] = cancel
        self._ended.setdefault(record.key, asyncio.Event()).clear()
        self.changed(record)

    def changed(self, record: TaskRecord) -> None:
        old = self._records.get(record.key)
        self._records[record.key] = record
        if record.status.ended:
            self._cancels.pop(record.key, None)
            self._ended.setdefault(record.key, asyncio.Event()).set()
            self._remember(record.key)
        if old is None or (old.status, old.message, old.late) != (record.status, record.message, record.late):
            self._store.save(record)
        self._tell(TaskChanged(record))

    def stopped_following(self, key: tuple[str, str], *, follow_now: bool) -> None:
        """The runner no longer follows a task that has not ended: it waits, and is followed again at
        once (`follow_now`: the turn stopped, the server is still there) or when its server is back."""
        self._cancels.pop(key, None)
        record = self._records.get(key)
        if record is None or not record.running:
            return
        self.changed(waiting(record))
        runner = self._runners.get(record.server)
        if follow_now and runner is not None and runner.ready():
            self._follow(runner, self._records[key])

    def _remember(self, key: tuple[str, str]) -> None:
        """Keep the last `RECENT` ended tasks listed; older ones leave the board."""
        if key in self._recent:
            return
        self._recent.append(key)
        while len(self._recent) > RECENT:
            old = self._recent.popleft()
            self._records.pop(old, None)
            self._ended.pop(old, None)

    def late_result(self, late: LateResult) -> None:
        self._store.keep_result(late)
        self._tell(late)

    # -- the user's cancel -----------------------------------------------------------------

    def cancel(self, key: tuple[str, str]) -> None:
        """Cancel a running task: its runner tells the server; a task nobody follows is let go."""
        record = self._records.get(key)
        if record is None or not record.running:
            return
        if (cancel := self._cancels.get(key)) is not None:
            cancel()
            return
        self.changed(record.with_status(TaskStatus.CANCELLED, NOT_TOLD))

    async def cancel_running(self, timeout: float) -> None:
        """Cancel every running task and wait (up to `timeout`) for their servers to be told."""
        running = [record.key for record in self._records.values() if record.running]
        for key in running:
            self.cancel(key)
        waits = [self._ended[key].wait() for key in running if key in self._ended]
        if waits:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), timeout)

    # -- following waiting tasks -----------------------------------------------------------

    def _on_state(self, event: ServerStateChanged) -> None:
        state = event.status.state
        runner = self._runners.get(event.server)
        if state is ServerState.READY and runner is not None:
            self._resume(runner)
        elif state in (ServerState.STOPPED, ServerState.FAILED, ServerState.DISABLED):
            for key, task in list(self._background.items()):  # they wait for the server's return instead
                if key[0] == event.server:
                    task.cancel()

    def _resume(self, runner: ServerTasks) -> None:
        for record in list(self._records.values()):
            if record.server == runner.name and record.status is TaskStatus.WAITING:
                self._follow(runner, record)

    def _follow(self, runner: ServerTasks, record: TaskRecord) -> None:
        running = self._background.get(record.key)
        if running is not None and not running.done():
            return
        self._spawn(record.key, runner.resume(replace(record, late=True)))

    def _spawn(self, key: tuple[str, str], work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work, name=f"task:{key[0]}:{key[1]}")
        self._background[key] = task

        def done(finished: asyncio.Task[None]) -> None:
            if self._background.get(key) is finished:
                del self._background[key]
            if not finished.cancelled() and (exc := finished.exception()) is not None:
                log.warning("following task %s of %s failed: %s", key[1], key[0], exc)

        task.add_done_callback(done)
