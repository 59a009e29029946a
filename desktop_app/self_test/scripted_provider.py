"""A model provider on 127.0.0.1 for the self-test: it answers one chat completion in the OpenAI and the
Anthropic dialects, streamed as the real services stream them, with text and one tool call; under
`FAILING` it fails every request as an overloaded service does (HTTP 500 with an error body).

The self-test sends a request through the app's own model path (LiteLLM, its HTTP client, the stream
assembly) to it, so a bundle that left out a part of LiteLLM the chat uses fails there, offline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any, Final

TOOL: Final = "demo__get_time"
TEXT: Final = "Checking the time."
FAILING: Final = "/failing"
"""A path prefix under which every request fails: the error path (LiteLLM maps the failure) is checked too."""
_MAX_BODY: Final = 1 << 20
_CHUNK: Final = {"id": "chatcmpl-self-test", "object": "chat.completion.chunk", "created": 0, "model": "self-test"}


def _sse(data: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _openai_stream() -> Iterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse({**_CHUNK, "choices": [choice]})

    yield chunk({"role": "assistant", "content": TEXT})
    call = {"index": 0, "id": "call_self_test", "type": "function", "function": {"name": TOOL, "arguments": ""}}
    yield chunk({"tool_calls": [call]})
    yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]})
    yield chunk({}, "tool_calls")
    usage = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
    yield _sse({**_CHUNK, "choices": [], "usage": usage})
    yield b"data: [DONE]\n\n"


def _anthropic_stream() -> Iterator[bytes]:
    usage = {"input_tokens": 12, "output_tokens": 0}
    message = {"id": "msg_self_test", "type": "message", "role": "assistant", "content": [], "usage": usage}
    yield _sse({"type": "message_start", "message": message}, "message_start")
    text_block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    yield _sse(text_block, "content_block_start")
    text = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": TEXT}}
    yield _sse(text, "content_block_delta")
    yield _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
    tool = {"type": "tool_use", "id": "toolu_self_test", "name": TOOL, "input": {}}
    yield _sse({"type": "content_block_start", "index": 1, "content_block": tool}, "content_block_start")
    arguments = {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{}"}}
    yield _sse(arguments, "content_block_delta")
    yield _sse({"type": "content_block_stop", "index": 1}, "content_block_stop")
    end = {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}
    yield _sse(end, "message_delta")
    yield _sse({"type": "message_stop"}, "message_stop")


class ScriptedProvider:
    """Serves the scripted answer on a loopback port until closed; keeps each request's path and body."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        """Listen on a free loopback port; the base URL to give the model settings."""
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode("latin-1").split()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = min(int(value.strip()), _MAX_BODY)
            path = request_line[1] if len(request_line) > 1 else ""
            self.requests.append((path, json.loads(await reader.readexactly(length) or b"{}")))
            if path.startswith(FAILING):
                error = json.dumps({"error": {"message": "overloaded", "type": "server_error"}}).encode()
                head = "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\n"
                writer.write(f"{head}content-length: {len(error)}\r\nconnection: close\r\n\r\n".encode() + error)
                await writer.drain()
                return
            stream = _anthropic_stream() if path.endswith("/messages") else _openai_stream()
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
            for part in stream:
                writer.write(part)
            await writer.drain()
        finally:
            writer.close()
