"""A scripted LLM provider on 127.0.0.1: real HTTP and SSE, for driving the chat loop in tests.

It speaks two dialects, OpenAI chat completions (`POST /v1/chat/completions`, also under
`/chat/completions`; the model list at `GET /v1/models`) and Anthropic messages (`POST /v1/messages`),
so litellm's own request and stream handling runs for real. Each request takes the next `Reply`
from the script and records its body. Tool-call arguments are split over several SSE chunks the way providers do, and a
reply can fail with an HTTP status, stream slowly, or hang until the client goes away.

The server runs in a thread with its own event loop, so it keeps answering while a test's
loop is busy or while a subprocess (the CLI) is the client.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Self

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

LOOPBACK = "127.0.0.1"
LITELLM_WARNINGS = [
    pytest.mark.filterwarnings("ignore:Accessing the 'model_:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Items? .* on TypedDict class .* `ReadOnly` qualifier:UserWarning"),
]
"""litellm 1.110.2 warns through pydantic on import and while streaming; not ours to fix."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] | str
    id: str = ""

    @property
    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class Reply:
    """One scripted provider answer."""

    text: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    # Tool-call arguments are sent in this many SSE fragments.
    fragments: int = 3
    usage: tuple[int, int] | None = (11, 7)
    """(prompt, completion) tokens reported at the end; None: the provider reports none."""
    status: int = 200
    error: str = "scripted failure"
    delay: float = 0.0
    """Seconds between chunks."""
    hang_after: int | None = None
    """Stop sending (but keep the connection open) after this many text chunks."""


def text(*chunks: str, **options: Any) -> Reply:
    return Reply(text=chunks, **options)


def calls(*tool_calls: ToolCall, **options: Any) -> Reply:
    return Reply(tool_calls=tool_calls, **options)


def failure(status: int, message: str = "scripted failure") -> Reply:
    return Reply(status=status, error=message)


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


def _split(text_: str, parts: int) -> list[str]:
    size = max(1, -(-len(text_) // max(1, parts)))
    return [text_[i : i + size] for i in range(0, len(text_), size)] or [""]


def _sse(data: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


@dataclass
class ScriptedLLM:
    """Answers each request with the next queued `Reply` and records every request body."""

    script: deque[Reply] = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)
    disconnected: threading.Event = field(default_factory=threading.Event)
    models: tuple[str, ...] = ("scripted", "scripted-large")
    """What `GET /v1/models` lists."""
    port: int = 0
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The OpenAI-style base (`.../v1`)."""
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def root(self) -> str:
        """The bare origin, for providers (Anthropic) that add `/v1/...` themselves."""
        return f"http://{LOOPBACK}:{self.port}"

    def queue(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]

    # -- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Self:
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._openai, methods=["POST"]),
                Route("/chat/completions", self._openai, methods=["POST"]),
                Route("/v1/messages", self._anthropic, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="error", lifespan="off", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        server = self._server
        self._thread = threading.Thread(target=lambda: server.run(sockets=[sock]), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the scripted LLM server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.should_exit = True
        self._thread.join(5)

    # -- handlers -------------------------------------------------------------------------

    async def _take(self, request: Request) -> Reply | None:
        body = await request.json()
        self.requests.append(Recorded(request.url.path, body, dict(request.headers)))
        return self.script.popleft() if self.script else None

    async def _models(self, request: Request) -> Response:
        """OpenAI's model list, as local servers (llama.cpp, vLLM, LM Studio) serve it (not recorded)."""
        data = [{"id": name, "object": "model", "owned_by": "scripted"} for name in self.models]
        return JSONResponse({"object": "list", "data": data})

    async def _openai(self, request: Request) -> Response:
        reply = await self._take(request)
        if unanswered := _unanswered_calls(self.requests[-1].body.get("messages", [])):
            # What OpenAI answers to a history with tool calls left without a result.
            message = (
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(unanswered)}"
            )
            return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=400)
        if reply is None:
            return JSONResponse({"error": {"message": "the test script has no reply left"}}, status_code=500)
        if reply.status != 200:
            return JSONResponse({"error": {"message": reply.error, "type": "scripted"}}, status_code=reply.status)
        return StreamingResponse(self._guard(request, self._openai_events(reply)), media_type="text/event-stream")

    async def _anthropic(self, request: Request) -> Response:
        reply = await self._take(request)
        if reply is None:
            return JSONResponse({"type": "error", "error": {"message": "no reply left"}}, status_code=500)
        if reply.status != 200:
            error = {"type": "error", "error": {"type": "api_error", "message": reply.error}}
            return JSONResponse(error, status_code=reply.status)
        return StreamingResponse(self._guard(request, self._anthropic_events(reply)), media_type="text/event-stream")

    async def _guard(self, request: Request, events: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        try:
            async for event in events:
                yield event
        except (asyncio.CancelledError, OSError):
            self.disconnected.set()
            raise

    async def _pace(self, reply: Reply, sent: int) -> None:
        if reply.hang_after is not None and sent >= reply.hang_after:
            self.disconnected.clear()
            await asyncio.sleep(3600)  # until the client disconnects and the server cancels us
        if reply.delay:
            await asyncio.sleep(reply.delay)

    async def _openai_events(self, reply: Reply) -> AsyncIterator[bytes]:
        base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": "scripted"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        yield chunk({"role": "assistant", "content": ""})
        for sent, piece in enumerate(reply.text):
            await self._pace(reply, sent)
            yield chunk({"content": piece})
        for index, call in enumerate(reply.tool_calls):
            call_id = call.id or f"call_{index}_{call.name}"
            head = {"index": index, "id": call_id, "type": "function", "function": {"name": call.name, "arguments": ""}}
            yield chunk({"tool_calls": [head]})
            for fragment in _split(call.arguments_json, reply.fragments):
                if reply.delay:
                    await asyncio.sleep(reply.delay)
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
        yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
        if reply.usage is not None:
            prompt, completion = reply.usage
            usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
            yield _sse({**base, "choices": [], "usage": usage})
        yield b"data: [DONE]\n\n"

    async def _anthropic_events(self, reply: Reply) -> AsyncIterator[bytes]:
        prompt, completion = reply.usage or (0, 0)
        message: dict[str, Any] = {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": "scripted",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": prompt, "output_tokens": 1},
        }
        yield _sse({"type": "message_start", "message": message}, "message_start")
        index = 0
        if reply.text:
            block = {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            yield _sse(block, "content_block_start")
            for sent, piece in enumerate(reply.text):
                await self._pace(reply, sent)
                delta = {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
                yield _sse(delta, "content_block_delta")
            yield _sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        for number, call in enumerate(reply.tool_calls):
            call_id = call.id or f"toolu_{number}_{call.name}"
            start = {"type": "tool_use", "id": call_id, "name": call.name, "input": {}}
            yield _sse({"type": "content_block_start", "index": index, "content_block": start}, "content_block_start")
            for fragment in _split(call.arguments_json, reply.fragments):
                delta = {"type": "input_json_delta", "partial_json": fragment}
                yield _sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
            yield _sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        stop = "tool_use" if reply.tool_calls else "end_turn"
        delta_event = {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": completion},
        }
        yield _sse(delta_event, "message_delta")
        yield _sse({"type": "message_stop"}, "message_stop")


# -- driving a ChatEngine against this server ------------------------------------------------


@dataclass
class RecordingApprover:
    """Answers approval requests from a queue of replies (default: allow once) and records them.

    It is the policy's asker: other questions get their fallback.
    """

    replies: deque[Any] = field(default_factory=deque)
    requests: list[Any] = field(default_factory=list)

    async def ask(self, question: Any) -> Any:
        from desktop_app.core.chat.approval import ApprovalReply, ApprovalRequest, DecidedBy, Decision

        if not isinstance(question, ApprovalRequest):
            return question.fallback()
        self.requests.append(question)
        return self.replies.popleft() if self.replies else ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER)


def _unanswered_calls(messages: list[dict[str, Any]]) -> list[str]:
    unanswered: list[str] = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        following = messages[index + 1 :]
        run = following[: next((i for i, m in enumerate(following) if m.get("role") != "tool"), len(following))]
        answered = {m.get("tool_call_id") for m in run}
        unanswered += [call["id"] for call in message["tool_calls"] if call.get("id") not in answered]
    return unanswered


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The `role: tool` messages of a recorded OpenAI request."""
    return [m for m in body["messages"] if m["role"] == "tool"]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]
