"""Prompts the user picks become a draft: earlier turns, the text to edit, the resources as attachments."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcp_types import EmbeddedResource, GetPromptResult, PromptMessage, TextContent, TextResourceContents

from desktop_app.core.chat.prompts import PromptLink, prompt_draft, prompt_messages
from desktop_app.core.host import ServerHost
from desktop_app.demo_server import build_server as build_demo_server
from tests.hosting import serving

pytestmark = pytest.mark.anyio


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    server = build_demo_server()
    async with serving({"demo": server}) as host:
        yield host


async def test_a_resource_link_becomes_an_attachment_not_text(host: ServerHost) -> None:
    result = await host.connection("demo").get_prompt("summarize_resource", {"uri": "demo://guide"})
    draft = prompt_draft(result, "demo", "summarize_resource", host.catalog)
    assert draft.history == ()
    assert draft.text.startswith("Please read the resource demo://guide")
    assert "[Resource link" not in draft.text
    assert draft.links == (PromptLink("demo", "demo://guide", "Getting started with MCP Desk", "text/markdown"),)
    # The model's invoke_prompt still gets every message as text.
    assert "Resource link" in prompt_messages(result, "demo", "summarize_resource")[-1]["content"]


async def test_turns_before_the_last_user_messages_join_the_conversation(host: ServerHost) -> None:
    result = await host.connection("demo").get_prompt("plan_task", {"goal": "Ship it"})
    draft = prompt_draft(result, "demo", "plan_task", host.catalog)
    assert [m["role"] for m in draft.history] == ["user", "assistant"]
    assert draft.text == "" and draft.links == ()


async def test_embedded_resources_attach_when_a_server_can_read_them_again(host: ServerHost) -> None:
    def embedded(uri: str) -> PromptMessage:
        contents = TextResourceContents(uri=uri, mime_type="text/plain", text="inline copy")
        return PromptMessage(role="user", content=EmbeddedResource(type="resource", resource=contents))

    result = GetPromptResult(
        messages=[
            PromptMessage(role="user", content=TextContent(type="text", text="Compare these:")),
            embedded("demo://notes/approvals"),  # the demo's template serves it
            embedded("elsewhere://only-inline"),
        ]
    )
    draft = prompt_draft(result, "demo", "compare", host.catalog)
    assert draft.links == (PromptLink("demo", "demo://notes/approvals", "approvals", "text/plain"),)
    assert draft.text.startswith("Compare these:") and "inline copy" in draft.text
    assert "elsewhere://only-inline" in draft.text
