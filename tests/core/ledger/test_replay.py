"""A trace read for replay: its turns, the recorded answers given back, results compared."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.core.chat.turn_trace import traced_attachments
from desktop_app.core.ledger.replay import RecordedModel, compare_results, recorded_turns
from desktop_app.core.model.llm import ProviderError, SentRequest
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.resource_ref import ResourceRef

pytestmark = pytest.mark.anyio

RECORDS: list[dict[str, Any]] = [
    {"type": "trace"},
    {"type": "turn", "turn": "a", "message": "hi", "model": "openai/m", "attachments": ["x://1"]},
    {
        "type": "model_response",
        "turn": "a",
        "request": 1,
        "message": {"role": "assistant", "content": "Hello."},
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    },
    {
        "type": "model_response",
        "turn": "a",
        "request": 2,
        "message": {"role": "assistant", "content": ""},
        "error": "openai/m: rate limited (HTTP 429)",
    },
    {"type": "ToolDecision", "turn": "a", "call_id": "c1", "allowed": True},
    {"type": "question", "turn": "a", "kind": "FormQuestion"},
    {"type": "ToolResult", "turn": "a", "call_id": "c1", "name": "t", "text": "one"},
    {"type": "ToolResult", "turn": "elsewhere", "call_id": "c9", "name": "t", "text": "not a turn of this trace"},
]


class Heard:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def text(self, delta: str) -> None:
        self.texts.append(delta)

    def tool_call_deltas(self, deltas: Any) -> None:
        raise AssertionError("a recorded answer arrives whole")

    def sent(self, request: SentRequest) -> None:
        raise AssertionError("nothing is sent")


async def test_recorded_answers_are_given_back_in_order_then_their_end() -> None:
    [turn] = recorded_turns(RECORDS)
    assert (turn.message, turn.model, turn.attachments) == ("hi", "openai/m", ["x://1"])
    assert len(turn.responses) == 2 and len(turn.results) == 1
    model, heard, settings = RecordedModel(turn), Heard(), ModelSettings("openai/m")
    reply = await model.complete(settings, [], [], None, heard)
    assert reply.message == {"role": "assistant", "content": "Hello."} and heard.texts == ["Hello."]
    assert reply.usage is not None and reply.usage.total_tokens == 7 and reply.sent is None
    with pytest.raises(ProviderError, match="rate limited"):  # the recorded failure, again
        await model.complete(settings, [], [], None, heard)
    with pytest.raises(ProviderError, match="no more recorded answers"):
        await model.complete(settings, [], [], None, heard)


def test_results_that_changed_went_missing_or_are_new_are_all_differences() -> None:
    recorded = [
        {"call_id": "a", "name": "t", "text": "same"},
        {"call_id": "b", "name": "t", "text": "old"},
        {"call_id": "c", "name": "t", "text": "gone"},
        {"call_id": "d", "name": "t", "text": "ok", "is_error": False},
    ]
    replayed = [
        {"call_id": "a", "name": "t", "text": "same"},
        {"call_id": "b", "name": "t", "text": "new"},
        {"call_id": "d", "name": "t", "text": "ok", "denied": True},
        {"call_id": "e", "name": "t", "text": "extra"},
    ]
    differences = compare_results(recorded, replayed)
    assert [d.call_id for d in differences] == ["b", "c", "d", "e"]
    assert differences[0].diff().endswith("-old\n+new\n")
    assert "+(no result)" in differences[1].diff() and "+[denied]" in differences[2].diff()
    assert "-(no result)" in differences[3].diff()


def test_an_attachment_keeps_the_server_it_was_read_from() -> None:
    record = {"type": "turn", "turn": "b", "message": "hi", "attachments": [{"uri": "x://1", "server": "notes"}]}
    [turn] = recorded_turns([record])
    assert traced_attachments(turn.attachments) == [ResourceRef("notes", "x://1")]
