"""The demo server's tool that asks the user back, in both protocol eras."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.core.asks.elicitation import ElicitReply, FormQuestion
from desktop_app.core.asks.form_schema import FieldKind
from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.demo_server import build_server
from tests.core.asks.hosting import text_of
from tests.hosting import inprocess_config, serving

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_plan_meeting_asks_with_a_form_and_saves_the_answer(era: str) -> None:
    replies = [
        ElicitReply("accept", {"title": "Team retro", "day": "2026-12-03", "room": "Small room"}),
        ElicitReply("decline"),
    ]

    def user(question: Question[Any]) -> Any:
        return replies.pop(0)

    server = build_server()
    asker = ScriptedAsker(user)
    async with serving({"demo": server}, inprocess_config("demo", protocol=era), asker=asker, policy=None) as host:
        connection = host.connection("demo")
        planned = text_of(await connection.call_tool("plan_meeting", {}))
        assert planned == "Planned 'Team retro' on 2026-12-03 (Small room); saved as note 1."
        assert "Meeting: Team retro" in server.notes.markdown()
        [question] = asker.asked
        assert isinstance(question, FormQuestion)
        kinds = {f.name: f.kind for f in question.form.fields}
        assert kinds == {
            "title": FieldKind.TEXT,
            "day": FieldKind.TEXT,
            "minutes": FieldKind.INTEGER,
            "room": FieldKind.CHOICE,
            "remind": FieldKind.BOOLEAN,
        }
        assert question.form.field("day").format == "date"  # type: ignore[union-attr]
        declined = text_of(await connection.call_tool("plan_meeting", {}))
        assert declined == "The user declined the form; no meeting was planned."
