"""What MCP Desk knows of one task: whose it is, where it stands, and how it ended.

Both protocol forms share this model: the server's five statuses, plus the ends MCP Desk gives a
task itself (the server no longer knows it, it stopped answering) and the wait for its server
after a restart. Records are frozen; each change is a new record, so a view never sees one half
updated.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

DEFAULT_POLL_S: Final = 1.0
"""How often to ask when the server suggests no interval."""
MIN_POLL_S: Final = 0.05
"""The fastest MCP Desk polls, whatever the server suggests."""
MAX_POLL_S: Final = 30.0
"""The slowest: a server suggesting an hour still hears from us (and we from it) twice a minute."""


class TaskStatus(StrEnum):
    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"
    """The server no longer knows the task (it restarted, or dropped it after its time to live)."""
    SILENT = "silent"
    """The server stopped answering about the task (or its time to live passed): MCP Desk stopped waiting."""
    WAITING = "waiting"
    """Followed again once its server is back (after the app or the server restarted)."""

    @property
    def ended(self) -> bool:
        return self in ENDED

    @property
    def label(self) -> str:
        return LABELS[self]


ENDED: Final = frozenset(
    {TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED, TaskStatus.UNKNOWN, TaskStatus.SILENT}
)
LABELS: Final = {
    TaskStatus.WORKING: "Working",
    TaskStatus.INPUT_REQUIRED: "Needs your input",
    TaskStatus.COMPLETED: "Completed",
    TaskStatus.FAILED: "Failed",
    TaskStatus.CANCELLED: "Cancelled",
    TaskStatus.UNKNOWN: "Unknown to the server",
    TaskStatus.SILENT: "Stopped reporting",
    TaskStatus.WAITING: "Waiting for its server",
}


def server_status(value: str) -> TaskStatus:
    """A status as a server reports it; anything else is read as still working (the next poll tells)."""
    try:
        status = TaskStatus(value)
    except ValueError:
        return TaskStatus.WORKING
    return status if status in SERVER_STATUSES else TaskStatus.WORKING


SERVER_STATUSES: Final = frozenset(
    {TaskStatus.WORKING, TaskStatus.INPUT_REQUIRED, TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED}
)


def poll_seconds(suggested_ms: float | None) -> float:
    """The server's suggested interval, within what MCP Desk is willing to do."""
    if suggested_ms is None or suggested_ms <= 0:
        return DEFAULT_POLL_S
    return min(MAX_POLL_S, max(MIN_POLL_S, suggested_ms / 1000))


def elapsed_text(seconds: float) -> str:
    """A duration for one line of text: "42 s", "3 min 05 s", "2 h 07 min"."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


@dataclass(frozen=True)
class TaskRecord:
    """One task of one server, as the Tasks view, the tool card and the store see it."""

    server: str
    task_id: str
    tool: str
    era: str
    """The protocol form it was created in: "2025-11-25" or "2026-07-28"."""
    call_id: str | None = None
    """The chat's tool call it belongs to (the card it shows in)."""
    conversation: str | None = None
    """The conversation its result goes to, when it arrives after its turn."""
    started: float = field(default_factory=time.time)
    status: TaskStatus = TaskStatus.WORKING
    message: str = ""
    """The server's status message, or why MCP Desk ended the task."""
    updated: float = field(default_factory=time.time)
    ended_at: float | None = None
    poll_interval: float = DEFAULT_POLL_S
    ttl: float | None = None
    """Seconds from its start the server keeps it (None: no limit given)."""
    late: bool = False
    """Followed after its call ended (a stopped turn, a restart): its result arrives as a late result."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.server, self.task_id)

    @property
    def running(self) -> bool:
        return not self.status.ended

    def elapsed(self, now: float | None = None) -> float:
        end = self.ended_at if self.ended_at is not None else (time.time() if now is None else now)
        return max(0.0, end - self.started)

    def with_status(self, status: TaskStatus, message: str | None = None, **changes: Any) -> TaskRecord:
        """This record after a report: `message` None keeps the last one, except that what a task said while it
        worked ("Generating report...") does not outlive the work: it completes with no message (its result says
        what was done). A poll that came late may bring a stage never seen as the completed task's message, so
        no message at completion can be told from one left over from the work."""
        if status is TaskStatus.COMPLETED and self.running:
            message = ""
        now = time.time()
        return replace(
            self,
            status=status,
            message=self.message if message is None else message,
            updated=now,
            ended_at=now if status.ended else None,
            **changes,
        )

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "status": str(self.status)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskRecord:
        """A stored record; raises (TypeError, ValueError, KeyError) when it is not one."""
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        record = cls(**known)
        if not isinstance(record.server, str) or not isinstance(record.task_id, str) or not record.task_id:
            raise ValueError("a task needs its server and id")
        return replace(record, status=TaskStatus(record.status))
