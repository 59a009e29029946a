"""What the turn's status line says after each of the engine's events: the engine says when it asks the
model (`ModelCallStarted`) and when a tool runs (a synthetic call starting, a server call allowed), so
the line names exactly the wait the turn is in, never one guessed from what came before.
"""

from __future__ import annotations

from desktop_app.core.chat.events import (
    ApprovalNeeded,
    ChatError,
    ChatEvent,
    ModelCallStarted,
    ServersConnecting,
    TextDelta,
    ToolCallStarted,
    ToolDecision,
    TurnFinished,
)
from desktop_app.ui.conversation.turn_status import TurnStatus


def show_wait(status: TurnStatus, event: ChatEvent, model_wait: str) -> None:
    """Name the wait `event` begins on `status`; `model_wait` is what a call to the model waits for now.

    An answer streaming in, a card asking the user, or an error is its own sign of life: the line goes
    until the engine starts its next wait.
    """
    if isinstance(event, ServersConnecting):
        status.wait_for(f"Waiting for {_names(event.servers)} to connect…")
    elif isinstance(event, ModelCallStarted):
        status.wait_for(model_wait)
    elif isinstance(event, TextDelta | ApprovalNeeded | ChatError | TurnFinished):
        status.done()
    elif isinstance(event, ToolCallStarted) and event.server is None:
        status.wait_for(f"Calling {event.name}…")
    elif isinstance(event, ToolDecision) and event.allowed:
        status.wait_for(f"Calling {event.tool} on {event.server}…")


def _names(servers: tuple[str, ...]) -> str:
    """ "demo", "demo and files", "demo, files and 2 more": a line that fits, whatever is configured."""
    shown = [*servers[:2], f"{len(servers) - 2} more"] if len(servers) > 3 else list(servers)
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
