"""A task's record after each report: what it said while it worked does not outlive the work."""

from __future__ import annotations

from desktop_app.core.tasks.model import TaskRecord, TaskStatus


def test_a_completed_task_keeps_no_message_from_its_work_even_a_stage_no_poll_saw() -> None:
    working = TaskRecord("everything", "t1", "research", "2025-11-25").with_status(
        TaskStatus.WORKING, "Gathering sources..."
    )
    # A late poll skipped the last stage: the completed report still carries it.
    done = working.with_status(TaskStatus.COMPLETED, "Generating report...")
    assert (done.status, done.message) == (TaskStatus.COMPLETED, "")
    assert done.with_status(TaskStatus.COMPLETED).message == ""
    assert working.with_status(TaskStatus.COMPLETED).message == ""


def test_a_failed_or_cancelled_task_keeps_what_it_said() -> None:
    working = TaskRecord("everything", "t1", "research", "2025-11-25").with_status(TaskStatus.WORKING, "Step 2")
    assert working.with_status(TaskStatus.FAILED, "the source is gone").message == "the source is gone"
    assert working.with_status(TaskStatus.CANCELLED).message == "Step 2"
