"""A stored history made whole again after a crash: every tool call gets a result.

A killed app can leave an assistant message whose tool calls have no result (an approval card
was open, or the calls were still running). Providers reject such a history (HTTP 400), so on
load each unpaired call gets a result saying the app stopped before it finished; the repair is
stored, so the history view and every later request see the same thing.
"""

from __future__ import annotations

from typing import Any, Final

INTERRUPTED_RESULT: Final = (
    "MCP Desk stopped before this tool call finished, so it has no result; it may or may not have run."
)

Message = dict[str, Any]


def missing_results(messages: list[Message]) -> list[tuple[int, Message]]:
    """Where each missing tool result belongs: (index in `messages` to insert before, message).

    A call's result must follow its assistant message among the tool messages right after it;
    the repair goes at the end of that run, in the order of the calls.
    """
    inserts: list[tuple[int, Message]] = []
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            continue
        end = index + 1
        answered: set[str] = set()
        while end < len(messages) and messages[end].get("role") == "tool":
            answered.add(str(messages[end].get("tool_call_id")))
            end += 1
        for call in calls:
            call_id = call.get("id") if isinstance(call, dict) else None
            if call_id is not None and str(call_id) not in answered:
                inserts.append((end, {"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED_RESULT}))
    return inserts
