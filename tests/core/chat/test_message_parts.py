"""The Messages section of a long chat's ledgers: each request counts only the turns it adds, and the
section it builds is the one a count from scratch gives, whatever the turns held (attachments, reads with
images, a prompt's messages, binaries, a turn that ended in an error, a provider that reuses call ids)."""

from __future__ import annotations

import base64
import json
from typing import Any

from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.message_parts import IMAGE_LEAD, MessageParts, PartsMemo
from desktop_app.core.chat.synthetic import INVOKE_PROMPT, READ_RESOURCE
from desktop_app.core.ledger.accounting import Accounting, Dialect
from desktop_app.core.ledger.parts import PartKind

PNG = (
    "data:image/png;base64,"
    + base64.b64encode(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    ).decode()
)


def call(call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}


class Chat:
    """A conversation as the engine keeps it: messages, and events at the position they were recorded."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.events: list[tuple[int, dict[str, Any]]] = []
        self.requests: list[tuple[tuple[dict[str, Any], ...], tuple[tuple[int, dict[str, Any]], ...]]] = []

    def add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def event(self, event: dict[str, Any]) -> None:
        self.events.append((len(self.messages), event))

    def request(self) -> None:
        """A request leaves with the chat as it is now."""
        self.requests.append((tuple(self.messages), tuple(self.events)))


def a_varied_chat(turns: int) -> Chat:
    chat = Chat()
    for turn in range(turns):
        chat.add({"role": "user", "content": f"Question {turn}" + (" (see attached)" if turn % 4 == 1 else "")})
        if turn % 4 == 1:
            chat.event({"type": "ResourceRead", "uri": f"notes://{turn}", "server": "notes", "contents": []})
            chat.messages[-1] = {
                **chat.messages[-1],
                "content": f"Question {turn}\n\nAttached resource notes://{turn} (text)",
            }
        chat.request()
        kind = turn % 5
        if kind == 3:  # the provider failed: the turn ends with no answer
            continue
        same_id = "call_0"  # some providers number calls from 0 in every turn
        if kind == 0:
            chat.add({"role": "assistant", "content": None, "tool_calls": [call(same_id, "demo__get_time")]})
            chat.event(
                {"type": "ToolResult", "call_id": same_id, "binaries": [{"mime_type": "image/png"}] * (turn % 2)}
            )
            chat.add({"role": "tool", "tool_call_id": same_id, "content": f"12:{turn:02d}"})
        elif kind == 1:
            uri = f"pics://{turn}"
            chat.add({"role": "assistant", "content": "", "tool_calls": [call(same_id, READ_RESOURCE, uri=uri)]})
            content = [{"uri": uri, "binary": True, "mime_type": "image/png", "size": 57}]
            chat.event({"type": "ResourceRead", "uri": uri, "server": "pics", "contents": content, "truncated": False})
            chat.add({"role": "tool", "tool_call_id": same_id, "content": f"{uri}: a picture, 16x16"})
            text = f"{IMAGE_LEAD}{uri} (image/png), read with read_resource:"
            chat.add(
                {
                    "role": "user",
                    "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": PNG}}],
                }
            )
        elif kind == 2:
            chat.add(
                {"role": "assistant", "content": None, "tool_calls": [call(same_id, INVOKE_PROMPT, name="review")]}
            )
            said = "Prompt 'review' of server 'notes' added 2 message(s) to the conversation, right after this result."
            chat.add({"role": "tool", "tool_call_id": same_id, "content": said})
            chat.add({"role": "user", "content": "Review this code, please."})
            chat.add({"role": "assistant", "content": "I will look at it line by line."})
        elif kind == 4:
            chat.add(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [call("a", "demo__get_time"), call("b", "demo__echo")],
                }
            )
            chat.add({"role": "tool", "tool_call_id": "a", "content": "12:00"})
            chat.add({"role": "tool", "tool_call_id": "b", "content": "echo"})
        chat.request()
        chat.add({"role": "assistant", "content": f"Answer {turn}: " + "word " * (turn % 7)})
    return chat


def section(
    request: tuple[tuple[dict[str, Any], ...], tuple[tuple[int, dict[str, Any]], ...]],
    count: Any,
    memo: PartsMemo | None,
    catalog: Catalog,
) -> tuple[list[Any], list[Any]]:
    messages, events = request
    return MessageParts(messages, events, catalog, Accounting(count, Dialect.OPENAI), 4096, memo).build()


def test_each_request_builds_the_section_a_count_from_scratch_builds() -> None:
    chat, catalog, memo = a_varied_chat(23), Catalog(), PartsMemo()
    count = len
    for request in chat.requests:
        assert section(request, count, memo, catalog) == section(request, count, None, catalog)
    parts, cuts = section(chat.requests[-1], count, None, catalog)
    kinds = {part.kind for part in parts}
    assert {PartKind.IMAGE, PartKind.PROMPT, PartKind.RESOURCE, PartKind.TOOL_RESULT, PartKind.FRAMING} <= kinds
    assert any("the picture follows as an image" in cut.text for cut in cuts)
    assert any("binary part(s) (image/png)" in cut.text for cut in cuts)
    assert sum(1 for part in parts if part.label.startswith("Prompt review message")) == 2 * 5  # 2, 7, 12, 17, 22


def test_a_request_counts_only_the_turns_it_adds() -> None:
    chat, catalog, memo = a_varied_chat(60), Catalog(), PartsMemo()
    counted: list[str] = []

    def count(text: str) -> int:
        counted.append(text)
        return len(text)

    for request in chat.requests[:-1]:
        section(request, count, memo, catalog)
    counted.clear()
    section(chat.requests[-1], count, memo, catalog)
    held = tuple(f"{what} {turn}" for turn in range(50, 59) for what in ("Question", "Answer"))
    assert not any(text.startswith(held) for text in counted)  # turns 50 to 58 are not counted again
    assert any(text.startswith("Question 59") for text in counted)

    counted.clear()  # counted another way (another model, a new catalog): from scratch
    section(chat.requests[-1], count, memo, Catalog())
    assert any(text.startswith("Answer 5") for text in counted)
