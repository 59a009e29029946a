"""A 2026 task's input requests, put to the user through the same handlers as every server question.

Each entry of `inputRequests` is treated exactly as the standalone request it stands for (a form,
a link, a sampling request, the roots): the client's elicitation, sampling and roots callbacks
answer it, so the user sees the usual card under the task's tool call, with the usual limits.
Keys are answered once over a task's life (a server repeats its open requests on every poll);
a request that cannot be read is refused once and not asked again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcp.client import ClientRequestContext, ClientSession
from mcp_types import ElicitRequest, ErrorData, InputRequest
from pydantic import TypeAdapter, ValidationError

log = logging.getLogger(__name__)

_INPUT_REQUEST: TypeAdapter[InputRequest] = TypeAdapter(InputRequest)
CANCELLED_FORM: dict[str, Any] = {"action": "cancel"}


class InputAnswers:
    """The keys of one task's input requests already answered (or refused), and how to answer new ones."""

    def __init__(self, note: Callable[[str, str], None]) -> None:
        self._note = note
        self.answered: set[str] = set()

    async def answer(self, session: ClientSession, requests: dict[str, Any]) -> dict[str, Any]:
        """Responses for the keys not answered yet, one question at a time, in the server's order."""
        responses: dict[str, Any] = {}
        for key, raw in requests.items():
            if key in self.answered:
                continue
            self.answered.add(key)
            try:
                request = _INPUT_REQUEST.validate_python(raw, by_name=False)
            except ValidationError as exc:
                why = f"it is malformed ({exc.error_count()} errors)"
                self._note("warning", f"refused the task's input request {key!r}: {why}")
                continue
            meta = request.params.meta if request.params is not None else None
            context = ClientRequestContext(session=session, request_id=key, meta=meta)
            reply = await session.dispatch_input_request(context, request)
            if isinstance(reply, ErrorData):
                # A task's answer must be a result: a refused form is a cancelled one, a refused sampling
                # or roots request is left unanswered (the server's own timeout decides).
                if isinstance(request, ElicitRequest):
                    responses[key] = CANCELLED_FORM
                continue
            responses[key] = reply.model_dump(by_alias=True, mode="json", exclude_none=True)
        return responses
