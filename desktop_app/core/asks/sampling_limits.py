"""How much one sampling request may ask the user to read and the user's model to process.

A server's prompt is put before the user on a card, then before their model at their cost. A
request of hundreds of messages, or hundreds of thousands of characters, cannot be reviewed on a
card, and under a standing permission nobody would read it at all: such a request is refused
before anyone is asked, with the limit it broke (as -32602, Invalid params: the request is the
problem). The bounds leave room for a full tool loop (`MAX_TOOL_ROUNDS` rounds of two messages).
"""

from __future__ import annotations

from typing import Any, Final

from mcp_types import AudioContent, CreateMessageRequestParams, ImageContent, ToolResultContent

from desktop_app.core.asks.sampling_messages import request_texts

MAX_MESSAGES: Final = 64
MAX_TEXT_CHARS: Final = 200_000
"""All text together: system prompt, messages, tool uses and results, tool descriptions and schemas."""
MAX_MEDIA_BYTES: Final = 8 * 1024 * 1024
"""Images and audio together, decoded."""
MAX_TOOLS: Final = 32


def request_problem(params: CreateMessageRequestParams) -> str | None:
    """Why the request is too big to put to the user, or None."""
    if len(params.messages) > MAX_MESSAGES:
        return f"it has {len(params.messages):,} messages; MCP Desk takes at most {MAX_MESSAGES}"
    tools = len(params.tools or [])
    if tools > MAX_TOOLS:
        return f"it offers {tools} tools; MCP Desk takes at most {MAX_TOOLS}"
    chars = sum(len(text) for text in request_texts(params))
    if chars > MAX_TEXT_CHARS:
        return f"its text is {chars:,} characters; MCP Desk takes at most {MAX_TEXT_CHARS:,}"
    media = _media_bytes(params)
    if media > MAX_MEDIA_BYTES:
        return f"its images and audio are {media:,} bytes; MCP Desk takes at most {MAX_MEDIA_BYTES:,}"
    return None


def _media_bytes(params: CreateMessageRequestParams) -> int:
    total = 0
    for message in params.messages:
        blocks: list[Any] = list(message.content_as_list)
        while blocks:
            block = blocks.pop()
            if isinstance(block, ImageContent | AudioContent):
                total += len(block.data) * 3 // 4
            elif isinstance(block, ToolResultContent):
                blocks.extend(block.content)
    return total
