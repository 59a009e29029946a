"""A scripted provider that reports usage the way the real ones bill it, counted from the body it received.

OpenAI-style: the cookbook's rules ("How to count tokens with tiktoken"): 3 tokens per message and 3
to prime the reply, each message's text, each tool call's name and arguments, and the functions
counted as OpenAI counts them. Anthropic-style: the system blocks, each message with its text,
tool_use and tool_result blocks, each tool's JSON definition and the tool-use system prompt.

It counts the provider's own wire format (Anthropic's blocks, not the app's OpenAI messages) and
shares only the tokenizer with the app (tiktoken on litellm's bundled files), none of its ledger:
agreement means the ledger's parts cover what really went out.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import math
import struct
from typing import Any

from starlette.requests import Request

from desktop_app.core.chat.token_process import count, load_encoding
from tests.llm_server import Reply, ScriptedLLM

_encoding = functools.cache(load_encoding)


def _count(text: str, encoding: str) -> int:
    return count(_encoding(encoding), text)


def _png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", "this provider reads PNG pictures only"
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


def _openai_image(url: str) -> int:
    """OpenAI's vision pricing: fit in 2048 px, shortest side to 768 px, 170 per 512 px tile plus 85."""
    width, height = _png_size(url.split(",", 1)[1])
    fit = min(1.0, 2048 / max(width, height))
    width, height = width * fit, height * fit
    shrink = min(1.0, 768 / min(width, height))
    return 85 + 170 * math.ceil(width * shrink / 512) * math.ceil(height * shrink / 512)


def openai_prompt_tokens(body: dict[str, Any]) -> int:
    def n(text: str) -> int:
        return _count(text, "o200k_base")

    total = 3
    for message in body["messages"]:
        total += 3 + n(message["role"])
        content = message.get("content")
        if isinstance(content, str):
            total += n(content)
        elif isinstance(content, list):
            total += sum(n(part.get("text", "")) for part in content if part.get("type") == "text")
            total += sum(_openai_image(p["image_url"]["url"]) for p in content if p.get("type") == "image_url")
        for call in message.get("tool_calls") or []:
            total += 3 + n(call["function"]["name"]) + n(call["function"]["arguments"])
    tools = body.get("tools") or []
    for tool in tools:
        function = tool["function"]
        total += 7 + n(f"{function['name']}:{function.get('description', '').removesuffix('.')}")
        properties = function.get("parameters", {}).get("properties", {})
        if properties:
            total += 3
            for key, schema in properties.items():
                total += 3
                if "enum" in schema:
                    total += -3 + sum(3 + n(str(item)) for item in schema["enum"])
                description = str(schema.get("description", "")).removesuffix(".")
                total += n(f"{key}:{schema.get('type', '')}:{description}")
    return total + (12 if tools else 0)


def anthropic_prompt_tokens(body: dict[str, Any]) -> int:
    def n(text: str) -> int:
        return _count(text, "cl100k_base")

    system = body.get("system") or []
    total = 3 + sum(n(block.get("text", "")) for block in system) if system else 0
    for message in body["messages"]:
        total += 3
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if block["type"] == "text":
                total += n(block["text"])
            elif block["type"] == "image":
                width, height = _png_size(block["source"]["data"])
                total += math.ceil(width * height / 750)
            elif block["type"] == "tool_use":
                total += 3 + n(block["name"]) + n(json.dumps(block["input"]))
            elif block["type"] == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    total += sum(n(b.get("text", "")) for b in inner)
                else:
                    total += n(str(inner or ""))
    tools = body.get("tools") or []
    for tool in tools:
        definition = {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "input_schema": tool["input_schema"],
        }
        total += n(json.dumps(definition))
    return total + (346 if tools else 0)


class RealisticLLM(ScriptedLLM):
    """`ScriptedLLM` whose replies report the usage of the request they answer."""

    async def _take(self, request: Request) -> Reply | None:
        reply = await super()._take(request)
        if reply is None or reply.usage is None:
            return reply
        body = self.requests[-1].body
        prompt = anthropic_prompt_tokens(body) if request.url.path.endswith("/messages") else openai_prompt_tokens(body)
        return dataclasses.replace(reply, usage=(prompt, reply.usage[1]))
