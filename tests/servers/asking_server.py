"""An MCP server that asks back (elicitation, sampling, roots), in both protocol eras.

On 2025-11-25 it sends `elicitation/create`, `sampling/createMessage` and `roots/list` as requests
of its own while a tool runs; on 2026-07-28 the same tools answer "input required" and read the
client's answers when it retries. Importable (`build_asking_server()`) or run over stdio:

    python tests/servers/asking_server.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
import warnings
from typing import Any, Final

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError, UrlElicitationRequiredError
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequest,
    InputRequiredResult,
    ListRootsRequest,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    Tool,
    ToolChoice,
    ToolResultContent,
    ToolUseContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

SERVER_NAME: Final = "asking"
PROFILE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "What should we call you?", "minLength": 2},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 30},
        "subscribe": {"type": "boolean", "title": "Subscribe to the newsletter", "default": False},
        "colour": {
            "type": "string",
            "title": "Favourite colour",
            "oneOf": [
                {"const": "r", "title": "Red"},
                {"const": "g", "title": "Green"},
                {"const": "b", "title": "Blue"},
            ],
            "default": "g",
        },
        "days": {
            "type": "array",
            "title": "Days that suit you",
            "items": {"type": "string", "enum": ["mon", "tue", "wed", "thu", "fri"]},
            "minItems": 1,
            "default": ["mon"],
        },
    },
    "required": ["name", "email"],
}
WEATHER_TOOL: Final = Tool(
    name="lookup_weather",
    description="The weather in a city",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
MAX_SAMPLING_ROUNDS: Final = 12


def _modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


async def _ask(ctx: Context, key: str, request: InputRequest, state: str | None = None) -> Any:
    """The client's answer to `request`, or (2026-07-28) the `InputRequiredResult` that asks for it."""
    if _modern(ctx):
        responses = ctx.input_responses or {}
        if key in responses:
            return responses[key]
        return InputRequiredResult(input_requests={key: request}, request_state=state or "asking")
    session = ctx.session
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if isinstance(request, ElicitRequest):
            params = request.params
            if isinstance(params, ElicitRequestURLParams):
                return await session.elicit_url(
                    params.message, params.url, params.elicitation_id or "", related_request_id=ctx.request_id
                )
            return await session.elicit_form(params.message, params.requested_schema, ctx.request_id)
        if isinstance(request, CreateMessageRequest):
            p = request.params
            return await session.create_message(
                p.messages,
                max_tokens=p.max_tokens,
                system_prompt=p.system_prompt,
                model_preferences=p.model_preferences,
                tools=p.tools,
                tool_choice=p.tool_choice,
                related_request_id=ctx.request_id,
            )
        return await session.list_roots()


def _result(reply: Any) -> Any:
    if isinstance(reply, InputRequiredResult):
        return reply
    return json.dumps(reply.model_dump(mode="json", by_alias=True, exclude_none=True))


def _register(server: MCPServer) -> None:
    @server.tool(description="Ask the user to fill in a form (the schema as JSON, or a profile form)")
    async def ask_form(
        ctx: Context, schema: str = "", message: str = "Tell the asking server about you."
    ) -> str | InputRequiredResult:
        requested = json.loads(schema) if schema else PROFILE_SCHEMA
        request = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=requested))
        return _result(await _ask(ctx, "form", request))

    @server.tool(description="Ask the user to open a web page")
    async def ask_link(
        ctx: Context,
        url: str = "https://example.com/connect?step=1",
        message: str = "Connect your account.",
        report: bool = False,
    ) -> str | InputRequiredResult:
        """With `report` (2025-11-25), a refusal is returned as "error CODE: message" instead of raised."""
        elicitation_id = None if _modern(ctx) else "link-1"
        params = ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation_id)
        try:
            return _result(await _ask(ctx, "link", ElicitRequest(params=params)))
        except MCPError as exc:
            if not report:
                raise
            return f"error {exc.code}: {exc.error.message}"

    done_links: set[str] = set()

    @server.tool(description="Needs a browser step first (2025-11-25: URL elicitation required)")
    async def needs_link(ctx: Context) -> str:
        if _modern(ctx):
            return "2026-07-28 has no 'URL elicitation required' error"
        if done_links:
            return "the browser step was done: here is the result"
        elicitation_id = f"pay-{uuid.uuid4().hex[:6]}"
        session = ctx.session

        async def complete_soon() -> None:
            await anyio.sleep(0.3)
            done_links.add(elicitation_id)
            await session.send_elicit_complete(elicitation_id)

        asyncio.get_running_loop().create_task(complete_soon())
        step = ElicitRequestURLParams(
            message="Pay first.", url="https://pay.example.com/checkout", elicitation_id=elicitation_id
        )
        raise UrlElicitationRequiredError([step], "This request needs a payment in the browser.")

    @server.tool(description="Ask the client's model (sampling); optionally offer it a weather tool")
    async def sample(
        ctx: Context, prompt: str, max_tokens: int = 100, hint: str = "", with_tools: bool = False
    ) -> str | InputRequiredResult:
        state = json.loads(ctx.request_state) if _modern(ctx) and ctx.request_state else {"history": []}
        history = [SamplingMessage.model_validate(m) for m in state["history"]]
        if not history:
            history = [SamplingMessage(role="user", content=TextContent(text=prompt))]
        preferences = ModelPreferences(hints=[ModelHint(name=hint)]) if hint else None
        for _ in range(MAX_SAMPLING_ROUNDS):
            params = CreateMessageRequestParams(
                messages=history,
                max_tokens=max_tokens,
                system_prompt="You are the asking server's helper.",
                model_preferences=preferences,
                tools=[WEATHER_TOOL] if with_tools else None,
                tool_choice=ToolChoice(mode="auto") if with_tools else None,
            )
            saved = json.dumps({"history": [m.model_dump(mode="json", by_alias=True) for m in history]})
            reply = await _ask(ctx, f"sample-{len(history)}", CreateMessageRequest(params=params), saved)
            if isinstance(reply, InputRequiredResult):
                return reply
            blocks = reply.content if isinstance(reply.content, list) else [reply.content]
            uses = [b for b in blocks if isinstance(b, ToolUseContent)]
            if not uses:
                text = " ".join(b.text for b in blocks if isinstance(b, TextContent))
                rounds = sum(m.role == "assistant" for m in history)
                return json.dumps({"text": text, "model": reply.model, "rounds": rounds, "stop": reply.stop_reason})
            history.append(SamplingMessage(role="assistant", content=blocks))
            results = [
                ToolResultContent(tool_use_id=u.id, content=[TextContent(text=f"Sunny in {u.input.get('city')}")])
                for u in uses
            ]
            history.append(SamplingMessage(role="user", content=results))
        return json.dumps({"text": "", "rounds": MAX_SAMPLING_ROUNDS, "stop": "too many rounds"})

    @server.tool(description="List the client's roots")
    async def roots(ctx: Context) -> str | InputRequiredResult:
        reply = await _ask(ctx, "roots", ListRootsRequest())
        if isinstance(reply, InputRequiredResult):
            return reply
        return json.dumps([{"uri": str(r.uri), "name": r.name} for r in reply.roots])

    @server.tool(description="Ask several forms at once (2025-11-25), reporting each outcome")
    async def flood(ctx: Context, count: int = 6) -> str:
        outcomes: list[str] = []

        async def one(index: int) -> None:
            schema = {"type": "object", "properties": {"n": {"type": "integer", "default": index}}}
            try:
                result: ElicitResult = await ctx.session.elicit_form(f"Question {index}", schema, ctx.request_id)
                outcomes.append(result.action)
            except MCPError as exc:
                outcomes.append(f"error {exc.code}: {exc}")

        async with anyio.create_task_group() as group:
            for index in range(count):
                group.start_soon(one, index)
        return json.dumps(sorted(outcomes))

    @server.tool(description="Ask one form after another (2025-11-25), each once the last is answered")
    async def ask_again(ctx: Context, count: int = 12) -> str:
        outcomes: list[str] = []
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        for index in range(count):
            try:
                result = await ctx.session.elicit_form(f"Question {index}", schema, ctx.request_id)
                outcomes.append(result.action)
            except MCPError as exc:
                outcomes.append(f"error {exc.code}: {exc.error.message}")
        return json.dumps(outcomes)

    @server.tool(description="Wait, then ask a form (to be cancelled meanwhile)")
    async def slow_ask(ctx: Context, seconds: float = 1.0) -> str:
        session = ctx.session

        async def late() -> None:
            # Detached from the call: it asks even after the client cancelled the call.
            await anyio.sleep(seconds)
            schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            try:
                result = await session.elicit_form("Still there?", schema)
                print(f"late question answered: {result.action}", file=sys.stderr, flush=True)
            except Exception as exc:
                print(f"late question refused: {exc}", file=sys.stderr, flush=True)

        asyncio.get_running_loop().create_task(late())
        await anyio.sleep(seconds * 10)
        return "finished waiting"


def build_asking_server() -> MCPServer:
    server = MCPServer(SERVER_NAME, version="1.0.0", instructions="Asks the user and the client's model.")
    _register(server)
    return server


if __name__ == "__main__":
    build_asking_server().run("stdio")
