"""What the task board tells its listeners (the window's tool cards and Tasks view, `mcp-desk run`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from mcp_types import CallToolResult

from desktop_app.core.tasks.model import TaskRecord

MAX_LATE_TEXT: Final = 20_000
"""Characters of a late result put in the draft for the model; the rest is cut with a note."""


@dataclass(frozen=True)
class TaskChanged:
    """A task started, reported, or ended (`record.status`)."""

    record: TaskRecord


@dataclass(frozen=True)
class LateResult:
    """A task's result that arrived after its turn had ended (stopped, or the app restarted)."""

    record: TaskRecord
    result: dict[str, Any]
    """The tool's result as the server sent it (JSON)."""

    def tool_result(self) -> CallToolResult:
        return CallToolResult.model_validate(self.result, by_name=False)

    def message(self) -> str:
        """A draft for the user to send on to the model: what ran, then what it returned (text only)."""
        record = self.record
        result = self.tool_result()
        parts: list[str] = []
        for block in result.content:
            text = getattr(block, "text", None)
            parts.append(text if isinstance(text, str) else f"[{block.type} content]")
        body = "\n".join(parts) or "(no content)"
        if len(body) > MAX_LATE_TEXT:
            body = body[:MAX_LATE_TEXT] + f"\n[… cut: {len(body) - MAX_LATE_TEXT} more characters]"
        outcome = "an error" if result.is_error else "this result"
        return (
            f"The tool {record.tool} on server {record.server} (call {record.call_id or 'unknown'}) finished after "
            f"its turn had ended, with {outcome}:\n\n{body}"
        )


TaskEvent = TaskChanged | LateResult
