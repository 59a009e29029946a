"""One server's side of asking: who asks, through which gate, for which call, and how refusals read.

Every handler (elicitation, sampling) puts its question through `AskContext.ask`, so the rules
are the same for all: a stopping server, a question after its call was cancelled, a flood, a
source past its budget, or a call that ends while the user thinks all get a clear error for the
server and a line in its log. A source stopped by its budget is said so once (`on_refusal`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from mcp_types import INTERNAL_ERROR, ErrorData

from desktop_app.core.asks.attribution import CallEnded, CallTracker, unless_ended
from desktop_app.core.asks.question import Question, QuestionsStopped, TooManyQuestions
from desktop_app.core.asks.service import AskService
from desktop_app.core.events import Event

R = TypeVar("R")
log = logging.getLogger(__name__)

USER_REJECTED: Final = -1
"""The code the spec's examples use when the user says no to a sampling request."""
NOT_ASKED: Final = -2
"""MCP Desk did not put the request to the user (too many at once, a stopping server, an ended call,
no model). An application code, outside JSON-RPC's reserved range like `USER_REJECTED`: -32600
(Invalid Request) would tell the server its message was malformed, and -32000..-32019 is the SDK's
own band. Requests that are really malformed get -32602 (Invalid params)."""
CANCELLED_TURN: Final = "the user cancelled the request it belongs to"


@dataclass
class AskContext:
    """What a handler needs to ask for one server; built by the connection."""

    server: str
    service: AskService
    calls: CallTracker
    note: Callable[[str, str], None]
    """Adds a line (level, text) to the server's log."""
    alive: Callable[[], bool]
    """False once the server is stopping: late requests are refused."""
    publish: Callable[[Event], None]

    def refuse(self, what: str, reason: str, code: int = NOT_ASKED, *, loud: bool = True) -> ErrorData:
        """An error for the server that says why, noted in its log (and told to `on_refusal` when `loud`)."""
        self.note("warning", f"refused {what}: {reason}")
        if loud and self.service.on_refusal is not None:
            self.service.on_refusal(self.server, f"refused {what}: {reason}")
        return ErrorData(code=code, message=f"MCP Desk refused {what}: {reason}")

    async def ask(self, what: str, build: Callable[[str | None], Question[R]]) -> R | ErrorData:
        """Put `build(call_id)` to the user under the rules above; an `ErrorData` when it cannot be asked."""
        if not self.alive():
            return self.refuse(what, "the server is stopping")
        scope = self.calls.scope()
        if scope is None and self.calls.recently_cancelled():
            return self.refuse(what, CANCELLED_TURN)
        question = build(scope.call_id if scope is not None else None)
        try:
            with scope.on_our_side() if scope is not None else contextlib.nullcontext():
                return await unless_ended(scope, self.service.questions.ask(question))
        except QuestionsStopped as exc:
            return self.refuse(what, str(exc), loud=exc.first)
        except TooManyQuestions as exc:
            return self.refuse(what, str(exc))
        except CallEnded:
            return self.refuse(what, CANCELLED_TURN if scope and scope.cancelled else "the request it belongs to ended")
        except Exception:  # a fault on our side (e.g. drawing the question): the server hears why, we keep going
            log.exception("asking the user for %s failed", self.server)
            return self.refuse(what, "it could not be shown to the user (a fault in MCP Desk)", INTERNAL_ERROR)
