"""`mcp-desk run` and tasks: a status line on stderr whenever a task changes, and Ctrl+C cancels them.

A tool call that becomes a task waits as long as the task runs (the window does the same); the
lines tell whoever runs the command that it is not stuck. Interrupted, the command tells each
server to cancel its running tasks (waiting a few seconds for their acknowledgements) before it
stops the servers, so no task goes on working for nobody.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

from desktop_app.core.host import ServerHost
from desktop_app.core.tasks.events import TaskChanged, TaskEvent
from desktop_app.core.tasks.model import TaskRecord, elapsed_text

CANCEL_WAIT_S: Final = 5.0
"""How long an interrupted run waits for servers to acknowledge the cancellation of their tasks."""


def status_line(record: TaskRecord) -> str:
    """One line: which task, where it stands, what the server says, for how long."""
    said = " ".join(record.message.split())  # the server's words on this one line: it cannot start another
    message = f": {said}" if said else ""
    return (
        f"task {record.tool} on {record.server} {record.status.label.lower()}{message} "
        f"({elapsed_text(record.elapsed())})"
    )


@asynccontextmanager
async def reporting_tasks(host: ServerHost, write: Callable[[str], None]) -> AsyncIterator[None]:
    """Print task changes with `write` during the block; when it is interrupted, cancel running tasks."""
    board = host.tasks
    last: dict[tuple[str, str], tuple[str, str]] = {}

    def show(event: TaskEvent) -> None:
        if not isinstance(event, TaskChanged):
            return
        record = event.record
        seen = (str(record.status), record.message)
        if last.get(record.key) != seen:
            last[record.key] = seen
            write(status_line(record))

    unsubscribe = board.subscribe(show)
    try:
        yield
    except BaseException:
        await board.cancel_running(CANCEL_WAIT_S)
        raise
    finally:
        unsubscribe()
