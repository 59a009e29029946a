"""The chat loop end to end: a real MCP fixture server, real litellm, a scripted provider over HTTP."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.chat.approval import (
    AlwaysAllowRules,
    ApprovalPolicy,
    ApprovalReply,
    DecidedBy,
    Decision,
)
from desktop_app.core.chat.conversations import Conversation
from desktop_app.core.chat.engine import CANCELLED_RESULT, ChatEngine, Turn
from desktop_app.core.chat.events import (
    ApprovalNeeded,
    ChatError,
    ChatEvent,
    ErrorKind,
    ModelCallStarted,
    PromptInjected,
    ResourceRead,
    TextDelta,
    ToolCallStarted,
    ToolProgress,
    ToolResult,
    TurnFinished,
    Usage,
)
from desktop_app.core.host import ServerHost
from desktop_app.core.model.settings import ChatOptions, ModelSettings
from desktop_app.core.resource_ref import ResourceRef
from tests.engine_kit import finished, of_type, run, scripted_engine
from tests.hosting import fixture_config, inprocess_config, serving, serving_configs
from tests.llm_server import (
    LITELLM_WARNINGS,
    RecordingApprover,
    Reply,
    ScriptedLLM,
    ToolCall,
    calls,
    failure,
    text,
    tool_messages,
    tool_names,
)
from tests.servers.fixture_server import (
    LONG_END_MARKER,
    RESOURCE_URIS,
    SERVER_READ_RESOURCE_REPLY,
    build_fixture_server,
    long_text,
    png_bytes,
)

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS, pytest.mark.usefixtures("provider_key")]


@pytest.fixture
async def host() -> AsyncIterator[ServerHost]:
    server = build_fixture_server()
    async with serving({"fx": server}) as host:
        yield host


def assert_valid_history(messages: list[dict[str, Any]]) -> None:
    """Every assistant tool call is answered by a tool message before the next assistant/user turn."""
    waiting: set[str] = set()
    for message in messages:
        if message["role"] == "tool":
            waiting.discard(message["tool_call_id"])
            continue
        assert not waiting, f"tool calls without results: {waiting}"
        if message["role"] == "assistant":
            waiting = {call["id"] for call in message.get("tool_calls") or []}
    assert not waiting, f"tool calls without results: {waiting}"


# -- context ----------------------------------------------------------------------------------


async def test_system_prompt_is_a_catalog_without_content(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(text("Hello"))
    engine = scripted_engine(host, llm)
    events = await run(engine, "hi")
    assert finished(events).text == "Hello"
    [body] = llm.bodies()
    system = body["messages"][0]
    assert system["role"] == "system"
    for uri in RESOURCE_URIS:
        assert uri in system["content"]
    assert "fixture://items/{item_id}" in system["content"]
    assert "greet(name*)" in system["content"] and "review(code*, language)" in system["content"]
    # fx is not trusted: its instructions stay out, and the catalog says where the model may read them.
    assert "A test fixture for MCP Desk." not in system["content"]
    assert "read_resource mcp-desk://instructions/fx returns them" in system["content"]
    assert LONG_END_MARKER not in system["content"] and "line 00001" not in system["content"]
    assert body["max_tokens"] == 500
    assert tool_names(body)[:2] == ["read_resource", "invoke_prompt"]
    assert "search_resources" not in tool_names(body)  # everything fits: nothing to search for
    assert "fx__echo" in tool_names(body) and "fx__read_resource" in tool_names(body)
    [usage] = of_type(events, Usage)
    assert (usage.prompt_tokens, usage.completion_tokens) == (11, 7)


async def test_no_usage_is_shown_when_the_provider_reports_none(host: ServerHost, llm: ScriptedLLM) -> None:
    # litellm counts no tokens for the app's requests: it would report zeros, not an estimate.
    llm.queue(Reply(text=("Hello",), usage=None))
    events = await run(scripted_engine(host, llm), "hi")
    assert finished(events).reason == "stop"
    assert of_type(events, Usage) == []


# -- read_resource ----------------------------------------------------------------------------


async def test_long_resource_arrives_whole(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "fixture://long"}), fragments=5), text("It ends with the marker.")
    )
    approver = RecordingApprover()
    events = await run(scripted_engine(host, llm, approver), "How does fixture://long end?")
    assert finished(events).reason == "stop"
    [result] = tool_messages(llm.bodies()[1])
    assert result["content"] == long_text()
    assert result["content"].endswith(LONG_END_MARKER)
    [read] = of_type(events, ResourceRead)
    assert (read.uri, read.server, read.truncated) == ("fixture://long", "fx", False)
    assert approver.requests == []  # reading never asks


async def test_safety_cap_cuts_with_an_explicit_notice(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("read_resource", {"uri": "fixture://long"})), text("ok"))
    events = await run(scripted_engine(host, llm, read_cap_bytes=10_000), "read it")
    [result] = tool_messages(llm.bodies()[1])
    assert result["content"].startswith("[Truncated by MCP Desk's safety cap: the full content is")
    assert f"({len(long_text()):,} characters)" in result["content"]
    assert LONG_END_MARKER not in result["content"]
    assert of_type(events, ResourceRead)[0].truncated


async def test_pdf_is_a_descriptor_unless_text_extraction_is_on(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("read_resource", {"uri": "fixture://doc.pdf"})), text("A PDF."))
    await run(scripted_engine(host, llm), "What is doc.pdf?")
    [plain] = tool_messages(llm.bodies()[1])
    assert plain["content"].startswith("[Binary resource: application/pdf")
    assert "%PDF" not in plain["content"]

    llm.queue(
        calls(ToolCall("read_resource", {"uri": "fixture://doc.pdf"})),
        calls(ToolCall("read_resource", {"uri": "fixture://doc.pdf", "pages": "3"})),
        calls(ToolCall("read_resource", {"uri": "fixture://doc.pdf", "pages": "9"})),
        text("done"),
    )
    engine = scripted_engine(host, llm, pdf_text=True)
    await run(engine, "Read doc.pdf")
    bodies = llm.bodies()
    whole = tool_messages(bodies[3])[0]["content"]
    assert "alpha first page" in whole and "omega last page" in whole
    page3 = tool_messages(bodies[4])[1]["content"]
    assert "omega last page" in page3 and "alpha" not in page3
    bad = tool_messages(bodies[5])[2]["content"]
    assert "outside this PDF's pages 1-3" in bad
    read_spec = next(t for t in bodies[3]["tools"] if t["function"]["name"] == "read_resource")
    assert "pages" in read_spec["function"]["parameters"]["properties"]


async def test_unknown_uri_lists_what_exists(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("read_resource", {"uri": "fixture://lng"})), text("Sorry."))
    await run(scripted_engine(host, llm), "read fixture://lng")
    [result] = tool_messages(llm.bodies()[1])
    content = result["content"]
    assert content.startswith("Resource 'fixture://lng' not found. Available URIs: [")
    listed = json.loads(content.split("Available URIs: ", 1)[1].split("]", 1)[0] + "]")
    assert listed[0] == "fixture://long"  # the closest match first
    assert set(RESOURCE_URIS) <= set(listed)
    assert "fixture://items/{item_id}" in content


async def test_template_uri_reads_from_the_owning_server(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(
        calls(
            ToolCall("read_resource", {"uri": "fixture://items/apple"}),
            ToolCall("read_resource", {"uri": "fixture://items/kiwi"}),
        ),
        text("Apple."),
    )
    events = await run(scripted_engine(host, llm), "what is apple?")
    apple, kiwi = tool_messages(llm.bodies()[1])
    assert apple["content"] == "Item apple: a fruit from the fixture catalog."
    assert "no item 'kiwi'" in kiwi["content"]
    results = of_type(events, ToolResult)
    assert [r.is_error for r in results] == [False, True]


async def test_images_go_to_vision_models_only_when_enabled(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("read_resource", {"uri": "fixture://image.png"})), text("Red and blue."))
    await run(scripted_engine(host, llm, images_to_model=True), "Describe image.png")
    second = llm.bodies()[1]["messages"]
    assert second[-2]["role"] == "tool" and "16x12 px" in second[-2]["content"]
    image_turn = second[-1]
    assert image_turn["role"] == "user"
    url = image_turn["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    import base64

    assert base64.b64decode(url.split(",", 1)[1]) == png_bytes()


# -- invoke_prompt ----------------------------------------------------------------------------


async def test_invoke_prompt_injects_real_turns(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(
        calls(ToolCall("invoke_prompt", {"name": "greet", "arguments": {"name": "Ada"}})),
        text("Hello Ada, welcome!"),
    )
    conversation = Conversation()
    events = await run(scripted_engine(host, llm), "Use the greet prompt for Ada", conversation)
    assert finished(events).text == "Hello Ada, welcome!"
    messages = llm.bodies()[1]["messages"]
    assert messages[-2]["role"] == "tool" and "added 1 message(s)" in messages[-2]["content"]
    assert messages[-1] == {"role": "user", "content": "Please greet Ada warmly."}
    [injected] = of_type(events, PromptInjected)
    assert (injected.server, injected.name) == ("fx", "greet")
    assert_valid_history(conversation.messages)


async def test_invoke_prompt_reports_missing_arguments_and_unknown_names(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(
        calls(ToolCall("invoke_prompt", {"name": "greet"}), ToolCall("invoke_prompt", {"name": "nope"})),
        text("ok"),
    )
    await run(scripted_engine(host, llm), "x")
    missing, unknown = tool_messages(llm.bodies()[1])
    assert missing["content"] == "Prompt 'greet' needs the argument(s) [\"name\"]."
    assert unknown["content"].startswith("Prompt 'nope' not found. Available prompts: [")


# -- server tools and approval ----------------------------------------------------------------


async def test_allow_and_deny(host: ServerHost, llm: ScriptedLLM) -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        [ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER), ApprovalReply(Decision.DENY, by=DecidedBy.USER)]
    )
    llm.queue(
        calls(ToolCall("fx__add", {"a": 2, "b": 3}), ToolCall("fx__echo", {"text": "secret"})),
        text("2 + 3 = 5"),
    )
    events = await run(scripted_engine(host, llm, approver), "add 2 and 3, then echo")
    added, echoed = tool_messages(llm.bodies()[1])
    assert added["content"] == "5"
    assert echoed["content"].startswith("The user declined to run 'fx__echo'")
    assert [(r.server, r.tool, r.arguments) for r in approver.requests] == [
        ("fx", "add", {"a": 2, "b": 3}),
        ("fx", "echo", {"text": "secret"}),
    ]
    assert len(of_type(events, ApprovalNeeded)) == 2
    assert [r.denied for r in of_type(events, ToolResult)] == [False, True]
    # The engine says when it asks the model: first, and again only after the round's last result.
    kinds = [type(e).__name__ for e in events if isinstance(e, ModelCallStarted | ToolResult | TextDelta)]
    assert kinds[:4] == ["ModelCallStarted", "ToolResult", "ToolResult", "ModelCallStarted"]
    assert set(kinds[4:]) == {"TextDelta"}
    assert [e.iteration for e in of_type(events, ModelCallStarted)] == [1, 2]


async def test_edited_arguments_are_validated_then_used(host: ServerHost, llm: ScriptedLLM) -> None:
    approver = RecordingApprover()
    approver.replies.extend(
        [
            ApprovalReply(Decision.ALLOW_ONCE, {"text": 42}, by=DecidedBy.USER),  # not a string: refused, asked again
            ApprovalReply(Decision.ALLOW_ONCE, {"text": "edited by the user"}, by=DecidedBy.USER),
        ]
    )
    llm.queue(calls(ToolCall("fx__echo", {"text": "from the model"})), text("done"))
    await run(scripted_engine(host, llm, approver), "echo")
    first, second = approver.requests
    assert first.problem is None
    assert second.problem is not None and "text: 42 is not of type 'string'" in second.problem
    [result] = tool_messages(llm.bodies()[1])
    assert "The user changed the arguments" in result["content"]
    assert result["content"].endswith("edited by the user")


async def test_allow_for_chat_and_always_persisted(host: ServerHost, llm: ScriptedLLM, tmp_path: Path) -> None:
    rules_path = tmp_path / "approvals.json"
    approver = RecordingApprover()
    approver.replies.extend(
        [
            ApprovalReply(Decision.ALLOW_CHAT, by=DecidedBy.USER),
            ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER),
            ApprovalReply(Decision.ALLOW_ALWAYS, by=DecidedBy.USER),
        ]
    )
    # Trusted, so its (closed-world) results do not taint the chat and pause the allowance.
    host.connection("fx").config = replace(host.connection("fx").config, trusted=True)
    engine = scripted_engine(host, llm, approver, rules=AlwaysAllowRules(rules_path))
    chat = Conversation()
    llm.queue(calls(ToolCall("fx__echo", {"text": "a"})), calls(ToolCall("fx__echo", {"text": "b"})), text("ok"))
    await run(engine, "echo twice", chat)
    assert len(approver.requests) == 1  # the second echo was allowed for this chat
    assert chat.taint == []
    llm.queue(calls(ToolCall("fx__echo", {"text": "c"})), text("ok"))
    await run(engine, "echo in another chat")
    assert len(approver.requests) == 2
    llm.queue(calls(ToolCall("fx__add", {"a": 1, "b": 1})), calls(ToolCall("fx__add", {"a": 2, "b": 2})), text("ok"))
    await run(engine, "add twice")
    assert len(approver.requests) == 3  # always allowed from the first answer on
    [rule] = json.loads(rules_path.read_text())["always_allow"]
    assert (rule["server"], rule["tool"]) == ("fx", "add")
    assert rule["digest"].startswith("sha256:")  # pinned to the definition the user allowed
    # A new process reads the rule; revoking it asks again.
    fresh = AlwaysAllowRules(rules_path)
    assert fresh.allows("fx", "add")
    fresh.revoke("fx", "add")
    later = scripted_engine(host, llm, approver, rules=AlwaysAllowRules(rules_path))
    llm.queue(calls(ToolCall("fx__add", {"a": 3, "b": 3})), text("ok"))
    await run(later, "add again")
    assert len(approver.requests) == 4


async def test_server_tool_named_read_resource_stays_separate(host: ServerHost, llm: ScriptedLLM) -> None:
    approver = RecordingApprover()
    llm.queue(
        calls(
            ToolCall("read_resource", {"uri": "fixture://data.json"}),
            ToolCall("fx__read_resource", {"uri": "fixture://data.json"}),
        ),
        text("ok"),
    )
    events = await run(scripted_engine(host, llm, approver), "read")
    synthetic, server = tool_messages(llm.bodies()[1])
    assert json.loads(synthetic["content"])["name"] == "fixture data"
    assert server["content"] == SERVER_READ_RESOURCE_REPLY
    assert [(r.server, r.tool) for r in approver.requests] == [("fx", "read_resource")]
    started = of_type(events, ToolCallStarted)
    assert [(s.server, s.tool) for s in started] == [(None, None), ("fx", "read_resource")]


async def test_tool_results_are_converted_for_the_model(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("fx__rich", {}), ToolCall("fx__fail", {})), text("ok"))
    events = await run(scripted_engine(host, llm), "rich")
    rich, fail = tool_messages(llm.bodies()[1])
    content = rich["content"]
    assert content.startswith("Rich result: text, an image, an embedded PDF and a link.")
    assert "[Image: image/png, " in content and "16x12 px" in content
    assert "Embedded resource fixture://doc.pdf (application/pdf):\n[Binary resource: application/pdf" in content
    assert "[Resource link: fixture://long (long, text/plain). Call read_resource" in content
    assert '"count": 3' not in content  # the content says it; structured content only stands in for none
    assert "base64" not in content and "iVBOR" not in content
    assert fail["content"] == "[The tool reported an error]\ndeliberate failure from fixture"
    rich_event, fail_event = of_type(events, ToolResult)
    assert rich_event.structured == {"items": ["apple", "apricot", "banana"], "count": 3}
    assert [b.mime_type for b in rich_event.binaries] == ["image/png", "application/pdf"]
    assert rich_event.binaries[0].data == png_bytes()
    assert fail_event.is_error and not rich_event.is_error


async def test_bad_calls_from_the_model_get_clear_errors(host: ServerHost, llm: ScriptedLLM) -> None:
    approver = RecordingApprover()
    llm.queue(
        calls(
            ToolCall("fx__echo", '{"text": "unterminated'),
            ToolCall("fx__add", {"a": "two", "b": 3}),
            ToolCall("no_such_tool", {}),
        ),
        text("ok"),
    )
    await run(scripted_engine(host, llm, approver), "x")
    bad_json, bad_schema, unknown = tool_messages(llm.bodies()[1])
    assert bad_json["content"].startswith("Tool 'fx__echo' was not called: the arguments are not valid JSON")
    assert "do not match its input schema" in bad_schema["content"] and "'two'" in bad_schema["content"]
    assert unknown["content"].startswith("There is no tool named 'no_such_tool'. Available tools: [")
    assert approver.requests == []  # nothing reached the gate, nothing ran


# -- attachments ------------------------------------------------------------------------------


async def test_attachments_are_read_at_send_time(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(text("It lists three items."))
    conversation = Conversation()
    events = await run(
        scripted_engine(host, llm),
        "What is in these?",
        conversation,
        attachments=[ResourceRef("", "fixture://data.json"), ResourceRef("", "fixture://image.png")],
    )
    user = llm.bodies()[0]["messages"][1]
    assert user["role"] == "user"
    assert user["content"].startswith(
        "What is in these?\n\nAttached resource fixture://data.json (data.json, application/json):\n{"
    )
    assert '"fixture data"' in user["content"]
    assert (
        "Attached resource fixture://image.png (image.png, image/png):\n[Binary resource: image/png" in user["content"]
    )
    assert [r.uri for r in of_type(events, ResourceRead)] == ["fixture://data.json", "fixture://image.png"]


async def test_unreadable_attachment_is_a_clear_error_and_nothing_is_sent(host: ServerHost, llm: ScriptedLLM) -> None:
    conversation = Conversation()
    events = await run(
        scripted_engine(host, llm), "see", conversation, attachments=[ResourceRef("", "fixture://missing")]
    )
    [error] = of_type(events, ChatError)
    assert error.kind is ErrorKind.INPUT and error.message.startswith("Cannot attach fixture://missing")
    assert finished(events).reason == "error"
    assert conversation.messages == [] and llm.requests == []


# -- stopping ---------------------------------------------------------------------------------


async def wait_for(turn_events: list[ChatEvent], kind: type[Any], count: int = 1, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(of_type(turn_events, kind)) < count:
        assert time.monotonic() < deadline, f"no {kind.__name__} event"
        await asyncio.sleep(0.01)


async def collect(turn: Turn) -> list[ChatEvent]:
    return [event async for event in turn]


async def test_cancel_mid_stream_closes_the_stream_and_keeps_history(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(text("Part one. ", "Part two. ", "never sent", hang_after=2))
    conversation = Conversation()
    turn = scripted_engine(host, llm).start_turn(conversation, "tell me")
    consumer = asyncio.ensure_future(collect(turn))
    await wait_for(turn.events, TextDelta, 2)
    turn.cancel()
    events = await asyncio.wait_for(consumer, 5)
    assert finished(events) == TurnFinished("cancelled", "Part one. Part two. ", 1)
    assert await asyncio.to_thread(llm.disconnected.wait, 5), "the provider stream was not closed"
    assert conversation.messages == [
        {"role": "user", "content": "tell me"},
        {"role": "assistant", "content": "Part one. Part two. "},
    ]


async def test_cancel_mid_tool_cancels_the_call_and_answers_it(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(calls(ToolCall("fx__slow", {"seconds": 30}), ToolCall("fx__echo", {"text": "x"})))
    conversation = Conversation()
    turn = scripted_engine(host, llm).start_turn(conversation, "be slow")
    await wait_for(turn.events, ApprovalNeeded)
    await asyncio.sleep(0.2)  # the call is now in flight on the server
    started = time.monotonic()
    turn.cancel()
    final = await asyncio.wait_for(turn.wait(), 5)
    assert final.reason == "cancelled"
    assert time.monotonic() - started < 2
    assert_valid_history(conversation.messages)
    results = [m for m in conversation.messages if m["role"] == "tool"]
    assert [m["content"] for m in results] == [CANCELLED_RESULT, CANCELLED_RESULT]
    # The server is still usable: the cancelled call did not wedge the connection.
    echo = await host.connection("fx").call_tool("echo", {"text": "still here"})
    assert not echo.is_error


async def test_provider_errors_end_the_turn_cleanly(host: ServerHost, llm: ScriptedLLM) -> None:
    conversation = Conversation()
    engine = scripted_engine(host, llm)
    llm.queue(failure(500, "upstream exploded"))
    events = await run(engine, "hi", conversation)
    [error] = of_type(events, ChatError)
    assert error.kind is ErrorKind.PROVIDER
    assert "HTTP 500" in error.message and "upstream exploded" in error.message
    assert error.message.startswith("openai/scripted: ")
    assert finished(events).reason == "error"
    llm.queue(failure(401, "invalid api key"))
    events = await run(engine, "again", conversation)
    assert of_type(events, ChatError)[0].message == "openai/scripted: authentication failed (HTTP 401): invalid api key"
    # The conversation is kept and a later turn works.
    llm.queue(text("Back."))
    events = await run(engine, "third", conversation)
    assert finished(events).text == "Back."
    assert [m["content"] for m in conversation.messages] == ["hi", "again", "third", "Back."]


async def test_unreachable_provider_is_a_provider_error(host: ServerHost) -> None:
    from tests.servers.everything import free_port

    policy = ApprovalPolicy(RecordingApprover())
    url = f"http://127.0.0.1:{free_port()}/v1"
    settings = ModelSettings("openai/scripted", api_base=url, timeout=5, max_retries=0)
    events = await run(ChatEngine(host, settings, policy), "hi")
    [error] = of_type(events, ChatError)
    assert error.kind is ErrorKind.PROVIDER and "openai/scripted: " in error.message
    assert finished(events).reason == "error"


async def test_max_iterations_stops_with_an_explicit_message(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(*[calls(ToolCall("read_resource", {"uri": "fixture://data.json"})) for _ in range(3)])
    conversation = Conversation()
    events = await run(scripted_engine(host, llm, max_iterations=2), "loop", conversation)
    final = finished(events)
    assert final.reason == "max_iterations" and final.iterations == 2
    assert "the iteration limit" in final.text and "2 calls" in final.text
    assert len(llm.requests) == 2
    assert_valid_history(conversation.messages)


@pytest.mark.stdio
async def test_server_crash_mid_tool_is_reported_and_the_turn_goes_on(llm: ScriptedLLM) -> None:
    async with serving_configs(fixture_config("fx"), settle=20) as host:
        llm.queue(calls(ToolCall("fx__crash", {})), text("The server crashed; I could not finish."))
        conversation = Conversation()
        events = await run(scripted_engine(host, llm), "crash it", conversation)
        [error] = of_type(events, ChatError)
        assert error.kind is ErrorKind.SERVER and "closed the connection" in error.message
        [result] = tool_messages(llm.bodies()[1])
        assert result["content"].startswith("The tool call failed: Server 'fx' closed the connection")
        assert finished(events).reason == "stop"
        assert_valid_history(conversation.messages)


# -- another dialect --------------------------------------------------------------------------


async def test_anthropic_dialect_through_litellm(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(
        calls(ToolCall("read_resource", {"uri": "fixture://long"}), fragments=4),
        text("It ends with ", "END-OF-LONG-RESOURCE."),
    )
    events = await run(scripted_engine(host, llm, model="anthropic/claude-test"), "How does it end?")
    assert finished(events).text == "It ends with END-OF-LONG-RESOURCE."
    first, second = llm.requests
    assert first.path == second.path == "/v1/messages"
    assert first.headers["x-api-key"] == "sk-ant-test"
    system = first.body["system"]
    system_text = system if isinstance(system, str) else "".join(block["text"] for block in system)
    assert "fixture://long" in system_text and LONG_END_MARKER not in system_text
    assert first.body["max_tokens"] == 500
    results = [
        block
        for message in second.body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    [result] = results
    content = result["content"]
    result_text = content if isinstance(content, str) else "".join(part["text"] for part in content)
    assert result_text == long_text()


async def test_a_stalled_provider_times_out_clearly(host: ServerHost, llm: ScriptedLLM) -> None:
    llm.queue(text("Thinking", "never", hang_after=1))
    policy = ApprovalPolicy(RecordingApprover())
    settings = ModelSettings("openai/scripted", api_base=llm.url, timeout=0.5, max_retries=0)
    conversation = Conversation()
    events = await asyncio.wait_for(run(ChatEngine(host, settings, policy), "hi", conversation), 10)
    [error] = of_type(events, ChatError)
    assert error.kind is ErrorKind.PROVIDER and "timed out" in error.message
    assert finished(events).reason == "error"
    assert conversation.messages == [{"role": "user", "content": "hi"}]


async def test_server_progress_reaches_the_ui_as_events(host: ServerHost, llm: ScriptedLLM) -> None:
    approver = RecordingApprover()
    approver.replies.append(ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER))
    llm.queue(calls(ToolCall("fx__slow", {"seconds": 0.2})), text("Slept."))
    events = await run(scripted_engine(host, llm, approver), "sleep a little")
    progress = of_type(events, ToolProgress)
    assert [(p.progress, p.total) for p in progress] == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    call_id = of_type(events, ToolCallStarted)[0].call_id
    assert {p.call_id for p in progress} == {call_id}
    assert events.index(progress[-1]) < events.index(of_type(events, ToolResult)[0])


async def test_many_tools_are_offered_within_a_budget_and_found_by_search(llm: ScriptedLLM) -> None:
    from tests.servers.paginated_server import build_paginated_server

    server = build_paginated_server(3, 50)  # 150 tools: more than the budget below
    async with serving({"paged": server}, inprocess_config("paged", protocol="legacy")) as host:
        assert len(list(host.catalog.tools())) == 150
        approver = RecordingApprover()
        approver.replies.append(ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER))
        llm.queue(
            calls(ToolCall("search_tools", {"query": "generated tool 149"})),
            calls(ToolCall("paged__tool_0149", {})),
            text("Called it."),
        )
        events = await run(scripted_engine(host, llm, approver, max_tools=20), "use generated tool 149")
        assert finished(events).reason == "stop"
        first, second, third = llm.bodies()
        names = [[t["function"]["name"] for t in body["tools"]] for body in (first, second, third)]
        assert "search_tools" in names[0] and len(names[0]) == 20 + 4  # the budget plus the client-side tools
        found = tool_messages(second)[0]["content"]
        assert "paged__tool_0149" in found.splitlines()[1]
        assert "paged__tool_0149" in names[1] and "paged__tool_0149" in names[2]
        assert tool_messages(third)[-1]["content"] == "tool_0149 called"


def test_tool_budget_is_validated() -> None:
    with pytest.raises(ValueError, match="max_tools"):
        ChatOptions(max_tools=500)
