"""The engine loads a skill for the conversation its turn belongs to, not the one the user looks at:
a skill allowed "for this chat" in one conversation is not read in another, whichever is on screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.skills.consent import SkillDecision
from tests.core.skills.conftest import HostFactory, User
from tests.engine_kit import scripted_engine
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]

REVIEW = "skill://team/review/SKILL.md"
GUIDE = "skill://team/review/references/GUIDE.md"


async def test_a_turn_reads_skills_as_its_own_conversation(
    folder: Path, skills_host: HostFactory, llm: ScriptedLLM
) -> None:
    user = User(SkillDecision.ALLOW_CHAT)
    host = await skills_host({"skills": folder}, "auto")
    host.questions.asker = user.asker
    engine = scripted_engine(host, llm)
    first, second = Conversation(), Conversation()
    host.asks.chat = second.id  # the user looks at the second chat while the first one's turn runs

    llm.queue(calls(ToolCall("read_resource", {"uri": REVIEW})), text("Loaded."))
    await engine.start_turn(first, "Load the review skill").wait()
    llm.queue(calls(ToolCall("read_resource", {"uri": GUIDE})), text("Read."))
    await engine.start_turn(first, "Read its guide").wait()
    llm.queue(calls(ToolCall("read_resource", {"uri": GUIDE})), text("Refused."))
    await engine.start_turn(second, "Read the guide here").wait()

    bodies = llm.bodies()
    loaded, guide, refused = (tool_messages(bodies[i])[-1] for i in (1, 3, 5))
    assert "review" in loaded["content"] and len(user.asked) == 1
    assert "Look for missing tests." in guide["content"]  # the guide, read where the skill was loaded
    assert "which is not loaded in this chat" in refused["content"]  # not in the chat on screen
