"""A sampling request in the model's terms and back: messages, tools, the chosen model, the result.

Only what the server sent goes to the model: its system prompt and its messages (text, images,
tool uses and results). MCP Desk adds nothing from the conversation; `includeContext` is not
offered (the capability is not declared) and is ignored if a server sends it anyway.

What the consent card shows is what the model reads: invisible characters (Unicode tag characters
that smuggle ASCII past the eye, bidi overrides that reorder what is drawn, zero-width spaces,
control characters) are removed from the server's text, tool descriptions included, before
either sees it.
"""

from __future__ import annotations

import json
import unicodedata
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import (
    AudioContent,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ImageContent,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)

from desktop_app.core.asks.service import SamplingModel
from desktop_app.core.model.providers import PROVIDERS_BY_ID, provider_for_model

MAX_TOOL_ROUNDS: Final = 8
"""Tool rounds one sampling exchange may run; after that the model must answer without tools."""

_STOP_REASONS: Final = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse", "function_call": "toolUse"}


_JOINERS: Final = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: format characters that scripts such as Persian and emoji sequences need."""


@dataclass(frozen=True)
class ShownMessage:
    """One of the server's messages as the consent card shows it; single-text messages can be edited."""

    role: str
    text: str
    editable: bool


@dataclass(frozen=True)
class ShownTool:
    """A tool the server offers the model, as the consent card shows it: all of what the model reads."""

    name: str
    description: str
    schema: str
    """The input schema as JSON."""


def _hidden(ch: str) -> bool:
    category = unicodedata.category(ch)
    return (category == "Cf" and ch not in _JOINERS) or (category == "Cc" and ch not in "\t\n\r")


def visible(text: str) -> str:
    """`text` without the characters that are not drawn but are read by the model."""
    if text.isprintable():
        return text
    return "".join(ch for ch in text if not _hidden(ch))


def request_texts(params: CreateMessageRequestParams) -> Iterator[str]:
    """Every piece of text a request would put before the model (for its size and its hidden characters)."""
    yield params.system_prompt or ""
    yield from params.stop_sequences or []
    for message in params.messages:
        for block in message.content_as_list:
            yield from _block_texts(block)
    for tool in params.tools or []:
        yield tool.name
        yield tool.description or ""
        yield json.dumps(tool.input_schema, ensure_ascii=False)


def _block_texts(block: Any) -> Iterator[str]:
    if isinstance(block, TextContent):
        yield block.text
    elif isinstance(block, ToolUseContent):
        yield block.name
        yield json.dumps(block.input, ensure_ascii=False)
    elif isinstance(block, ToolResultContent):
        for inner in block.content:
            yield from _block_texts(inner)


def hidden_count(params: CreateMessageRequestParams) -> int:
    """How many invisible characters `visible` takes out of the request."""
    return sum(sum(1 for ch in text if _hidden(ch)) for text in request_texts(params) if not text.isprintable())


def _block_text(block: Any) -> str:
    if isinstance(block, TextContent):
        return visible(block.text)
    if isinstance(block, ImageContent):
        return f"[image, {block.mime_type}, {len(block.data) * 3 // 4:,} bytes]"
    if isinstance(block, AudioContent):
        return f"[audio, {block.mime_type}: not sent to the model]"
    if isinstance(block, ToolUseContent):
        return visible(f"[calls tool {block.name} with {json.dumps(block.input, ensure_ascii=False)}]")
    if isinstance(block, ToolResultContent):
        inner = " ".join(_block_text(b) for b in block.content)
        return f"[{'error from' if block.is_error else 'result of'} tool call {block.tool_use_id}: {inner}]"
    return f"[{getattr(block, 'type', 'content')}]"


def shown_messages(messages: Sequence[SamplingMessage]) -> tuple[ShownMessage, ...]:
    shown = []
    for message in messages:
        blocks = message.content_as_list
        editable = len(blocks) == 1 and isinstance(blocks[0], TextContent)
        shown.append(ShownMessage(message.role, "\n".join(_block_text(b) for b in blocks), editable))
    return tuple(shown)


def tool_rounds(messages: Sequence[SamplingMessage]) -> int:
    """How many times the model has already asked for tools in this exchange."""
    return sum(
        1 for m in messages if m.role == "assistant" and any(isinstance(b, ToolUseContent) for b in m.content_as_list)
    )


def to_model_messages(
    params: CreateMessageRequestParams, system_prompt: str | None = None, texts: Mapping[int, str] | None = None
) -> list[dict[str, Any]]:
    """litellm's messages for the request, with the user's edits (system prompt, texts by index)."""
    texts = texts or {}
    system = visible(params.system_prompt or "") if system_prompt is None else system_prompt
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for index, message in enumerate(params.messages):
        blocks = message.content_as_list
        if index in texts:
            blocks = [TextContent(text=texts[index])]
        out.extend(_convert(message.role, blocks))
    return out


def _convert(role: str, blocks: Sequence[Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": visible(block.text)})
        elif isinstance(block, ImageContent):
            parts.append({"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}})
        elif isinstance(block, ToolUseContent):
            arguments = visible(json.dumps(block.input, ensure_ascii=False))
            function = {"name": visible(block.name), "arguments": arguments}
            calls.append({"id": block.id, "type": "function", "function": function})
        elif isinstance(block, ToolResultContent):
            text = "\n".join(_block_text(b) for b in block.content) or "(no output)"
            output = f"Error: {text}" if block.is_error else text
            results.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": output})
        else:
            parts.append({"type": "text", "text": _block_text(block)})
    messages: list[dict[str, Any]] = list(results)  # tool results answer the previous assistant turn first
    if calls:
        message: dict[str, Any] = {"role": "assistant", "tool_calls": calls}
        text = "".join(p["text"] for p in parts if p["type"] == "text")
        if text:
            message["content"] = text
        return [*messages, message]
    if parts:
        only_text = all(p["type"] == "text" for p in parts)
        content: Any = "\n".join(p["text"] for p in parts) if only_text else parts
        messages.append({"role": role, "content": content})
    return messages


def tool_specs(params: CreateMessageRequestParams) -> list[dict[str, Any]]:
    """The server's tools as function specs (only for this request; the model cannot call them itself)."""
    specs = []
    for tool in params.tools or []:
        description = visible(tool.description or "")
        function = {"name": visible(tool.name), "description": description, "parameters": _schema(tool)}
        specs.append({"type": "function", "function": function})
    return specs


def shown_tools(params: CreateMessageRequestParams) -> tuple[ShownTool, ...]:
    """The tools exactly as `tool_specs` hands them to the model."""
    return tuple(
        ShownTool(visible(tool.name), visible(tool.description or ""), json.dumps(_schema(tool), ensure_ascii=False))
        for tool in params.tools or []
    )


def _schema(tool: Any) -> dict[str, Any]:
    """The tool's input schema with its texts made visible (format characters are never JSON syntax)."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {"type": "object"}
    cleaned: dict[str, Any] = json.loads(visible(json.dumps(schema, ensure_ascii=False)))
    return cleaned


def choose_model(preferences: ModelPreferences | None, model: SamplingModel) -> str:
    """The first model hint that names the user's model or one of its provider's, else the user's model.

    Hints are substrings (`sonnet` matches `claude-sonnet-4-5`); only models of the provider the
    user configured (its key, its base URL) are considered, so a hint never sends the request elsewhere.
    """
    configured = model.settings.model
    preset = PROVIDERS_BY_ID.get(model.provider) or provider_for_model(configured)
    for hint in preferences.hints if preferences and preferences.hints else []:
        name = (hint.name or "").strip().lower()
        if not name:
            continue
        if name in configured.lower():
            return configured
        for suggestion in preset.suggestions:
            if name in suggestion.lower():
                return preset.prefix + suggestion
    return configured


@dataclass(frozen=True)
class ModelAnswer:
    """What the model said: its text, the tools it wants called (id, name, arguments), why it stopped."""

    text: str
    tool_uses: tuple[tuple[str, str, dict[str, Any]], ...]
    stop_reason: str
    model: str


def read_answer(response: Any, model: str) -> ModelAnswer:
    """A `ModelAnswer` from litellm's assembled response."""
    choice = response.choices[0] if response is not None and response.choices else None
    if choice is None:
        return ModelAnswer("", (), "endTurn", model)
    message = choice.message
    uses = []
    for call in message.tool_calls or []:
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except ValueError:
            arguments = {"_unparsed": call.function.arguments}
        if not isinstance(arguments, dict):
            arguments = {"value": arguments}
        uses.append((call.id or f"call_{uuid.uuid4().hex[:12]}", call.function.name or "", arguments))
    reason = _STOP_REASONS.get(choice.finish_reason or "stop", str(choice.finish_reason))
    if uses:
        reason = "toolUse"
    return ModelAnswer(message.content or "", tuple(uses), reason, model)


def to_result(answer: ModelAnswer, with_tools: bool) -> CreateMessageResult | CreateMessageResultWithTools:
    """The reply for the server: single text content, or (when it offered tools) a list of blocks."""
    if not with_tools:
        return CreateMessageResult(
            role="assistant", content=TextContent(text=answer.text), model=answer.model, stop_reason=answer.stop_reason
        )
    blocks: list[Any] = [TextContent(text=answer.text)] if answer.text or not answer.tool_uses else []
    blocks += [ToolUseContent(id=i, name=name, input=arguments) for i, name, arguments in answer.tool_uses]
    return CreateMessageResultWithTools(
        role="assistant", content=blocks, model=answer.model, stop_reason=answer.stop_reason
    )
