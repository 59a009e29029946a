"""Tasks kept across the app's restarts: the ones still running, and results not yet delivered.

The specification asks clients to keep task ids durably so polling can resume after a restart.
One small JSON file in the data folder (0600: a task id may be all a server asks to hand over its
result) holds each running task's record (server, id, tool, conversation, call) and each late
result until its conversation has taken it. Writing is best effort: a full disk costs the
resumption, never the task itself.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Final

from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.state_file import items_of, load_or_set_aside
from desktop_app.core.tasks.events import LateResult
from desktop_app.core.tasks.model import TaskRecord, TaskStatus

log = logging.getLogger(__name__)

TASKS_FILENAME: Final = "tasks.json"
MAX_KEPT_RESULT: Final = 4 * 1024 * 1024
"""Bytes of a late result's JSON kept on disk; a larger one is kept as a note saying so."""


class TaskStore:
    """The file of running tasks and undelivered results; `path` None keeps them in memory only."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._running: dict[tuple[str, str], TaskRecord] = {}
        self._results: dict[tuple[str, str], LateResult] = {}
        self._load()

    def running(self) -> list[TaskRecord]:
        return list(self._running.values())

    def late_results(self) -> list[LateResult]:
        return list(self._results.values())

    def save(self, record: TaskRecord) -> None:
        """Keep (or update) a running task; an ended one is forgotten."""
        if record.status.ended:
            self.forget(record)
            return
        self._running[record.key] = record
        self._write()

    def forget(self, record: TaskRecord) -> None:
        if self._running.pop(record.key, None) is not None:
            self._write()

    def keep_result(self, late: LateResult) -> None:
        """Hold a late result until its conversation takes it; its task is no longer running."""
        self._running.pop(late.record.key, None)
        self._results[late.record.key] = _bounded(late)
        self._write()

    def delivered(self, late: LateResult) -> None:
        if self._results.pop(late.record.key, None) is not None:
            self._write()

    def _load(self) -> None:
        document = None if self.path is None else load_or_set_aside(self.path)
        if document is None:
            return
        for data in items_of(document, "running"):
            try:
                record = TaskRecord.from_json(data)
            except (TypeError, ValueError, KeyError) as exc:
                log.warning("ignoring an unreadable task in %s: %s", self.path, exc)
                continue
            self._running[record.key] = record
        for data in items_of(document, "results"):
            try:
                late = LateResult(TaskRecord.from_json(data["task"]), dict(data["result"]))
            except (TypeError, ValueError, KeyError) as exc:
                log.warning("ignoring an unreadable task result in %s: %s", self.path, exc)
                continue
            self._results[late.record.key] = late

    def _write(self) -> None:
        if self.path is None:
            return
        document: dict[str, Any] = {
            "running": [record.to_json() for record in self._running.values()],
            "results": [{"task": late.record.to_json(), "result": late.result} for late in self._results.values()],
        }
        try:
            atomic_write(self.path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
        except OSError as exc:
            log.warning("could not keep the running tasks in %s: %s", self.path, exc)


def _bounded(late: LateResult) -> LateResult:
    size = len(json.dumps(late.result, ensure_ascii=False))
    if size <= MAX_KEPT_RESULT:
        return late
    note = f"The result ({size} bytes) was too large for MCP Desk to keep; run the tool again to see it."
    return LateResult(late.record, {"content": [{"type": "text", "text": note}], "isError": True})


def waiting(record: TaskRecord) -> TaskRecord:
    """A stored task as it is at start: followed again (late) once its server is ready."""
    return record.with_status(TaskStatus.WAITING, late=True)
