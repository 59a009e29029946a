"""How a provider counts a request, so the app's count can stand next to the provider's figure.

A provider does not bill the JSON it receives: it counts the text of each message plus a few
tokens of framing per message, and the tool schemas rendered in a form of its own. Two styles
cover the providers MCP Desk offers:

- **OpenAI-style** (OpenAI, OpenRouter, Gemini's and local servers' OpenAI endpoints): 3 tokens
  per message, 1 per `name`, 3 to prime the reply, and tools counted as OpenAI's cookbook counts
  them (each function's `name:description`, each property's `name:type:description`, fixed
  costs per function and for the list).
- **Anthropic-style**: the system text, each message's text with a little framing, each tool's
  JSON definition, and the tool-use system prompt Anthropic adds whenever tools are sent
  (346 tokens for current models, as its pricing page lists).

The tokenizer is the app's own (`core/chat/tokens.py`, passed in as `count`): the one litellm
uses for the model. Images are estimated from their pixel size, as each provider documents.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final

from desktop_app.core.content import image_dimensions

Counter = Callable[[str], int]


class Dialect(StrEnum):
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


OPENAI_PER_MESSAGE: Final = 3
OPENAI_PER_NAME: Final = 1
OPENAI_REPLY_PRIMING: Final = 3
OPENAI_PER_TOOL_CALL: Final = 3
# OpenAI's cookbook ("How to count tokens with tiktoken", functions): fixed costs of the tool list.
FUNCTION_INIT: Final = 7
PROPERTIES_INIT: Final = 3
PROPERTY_KEY: Final = 3
ENUM_INIT: Final = -3
ENUM_ITEM: Final = 3
FUNCTIONS_END: Final = 12
ANTHROPIC_PER_MESSAGE: Final = 3
ANTHROPIC_PER_BLOCK: Final = 3
ANTHROPIC_TOOL_SYSTEM_PROMPT: Final = 346
"""The tool-use system prompt Anthropic adds when a request carries tools (tool choice auto)."""
ANTHROPIC_PIXELS_PER_TOKEN: Final = 750
ANTHROPIC_MAX_EDGE: Final = 1568
OPENAI_TILE: Final = 512
OPENAI_TILE_TOKENS: Final = 170
OPENAI_IMAGE_BASE: Final = 85
IMAGE_UNKNOWN_TOKENS: Final = 1000
"""An image whose size cannot be read: about what a mid-sized picture costs with either provider."""


def dialect_for(model: str) -> Dialect:
    """Anthropic-style for Claude models on Anthropic's own API; OpenAI-style for every other route."""
    prefix, _, name = model.partition("/")
    if prefix == "anthropic" or (not name and model.startswith("claude")):
        return Dialect.ANTHROPIC
    return Dialect.OPENAI


def text_of(content: Any) -> str:
    """The text of a message's content, a string or a list of parts (image parts are not text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def images_of(content: Any) -> list[str]:
    """The data URLs (or addresses) of a message's image parts."""
    if not isinstance(content, list):
        return []
    urls: list[str] = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            if isinstance(url, str):
                urls.append(url)
    return urls


class Accounting:
    """Counts the pieces of a request the way `dialect` bills them."""

    def __init__(self, count: Counter, dialect: Dialect) -> None:
        self.count = count
        self.dialect = dialect

    # -- messages -------------------------------------------------------------------------

    def framing(self, message: dict[str, Any]) -> int:
        """What a message costs beyond its text, tool calls and images: role markers and separators."""
        if self.dialect is Dialect.ANTHROPIC:
            return ANTHROPIC_PER_MESSAGE
        extra = OPENAI_PER_NAME if message.get("name") else 0
        return OPENAI_PER_MESSAGE + self.count(str(message.get("role", ""))) + extra

    def tool_calls(self, message: dict[str, Any]) -> int:
        """An assistant message's tool calls: each one's name and arguments, plus its own wrapping."""
        total = 0
        per_call = ANTHROPIC_PER_BLOCK if self.dialect is Dialect.ANTHROPIC else OPENAI_PER_TOOL_CALL
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            total += (
                per_call + self.count(str(function.get("name", ""))) + self.count(str(function.get("arguments", "")))
            )
        return total

    def image(self, url: str) -> int:
        """One image part, from its pixel size (read from a `data:` URL; unknown for an address)."""
        size = _data_url_size(url)
        if size is None:
            return IMAGE_UNKNOWN_TOKENS
        width, height = size
        if self.dialect is Dialect.ANTHROPIC:
            scale = min(1.0, ANTHROPIC_MAX_EDGE / max(width, height))
            return max(1, math.ceil(width * scale * height * scale / ANTHROPIC_PIXELS_PER_TOKEN))
        fit = min(1.0, 2048 / max(width, height))
        wide, high = width * fit, height * fit
        scale = min(1.0, 768 / min(wide, high))
        tiles = math.ceil(wide * scale / OPENAI_TILE) * math.ceil(high * scale / OPENAI_TILE)
        return OPENAI_IMAGE_BASE + OPENAI_TILE_TOKENS * tiles

    def reply_priming(self) -> int:
        return OPENAI_REPLY_PRIMING if self.dialect is Dialect.OPENAI else 0

    # -- tools ----------------------------------------------------------------------------

    def tool(self, spec: dict[str, Any]) -> int:
        """One tool schema as the dialect bills it: in OpenAI's function format, or as sent to
        Anthropic (`name`, `description`, `input_schema`: litellm drops what Anthropic does not take)."""
        if "function" not in spec:
            definition = {k: spec.get(k) for k in ("name", "description", "input_schema")}
            return self.count(json.dumps(definition, ensure_ascii=False))
        function = spec.get("function") or {}
        name = str(function.get("name", ""))
        description = str(function.get("description") or "")
        parameters = function.get("parameters") or {}
        if self.dialect is Dialect.ANTHROPIC:
            definition = {"name": name, "description": description, "input_schema": parameters}
            return self.count(json.dumps(definition, ensure_ascii=False))
        return FUNCTION_INIT + self.count(f"{name}:{description.removesuffix('.')}") + self._properties(parameters)

    def _properties(self, parameters: Any) -> int:
        properties = parameters.get("properties") if isinstance(parameters, dict) else None
        if not isinstance(properties, dict) or not properties:
            return 0
        total = PROPERTIES_INIT
        for key, schema in properties.items():
            schema = schema if isinstance(schema, dict) else {}
            total += PROPERTY_KEY
            enum = schema.get("enum")
            if isinstance(enum, list):
                total += ENUM_INIT + sum(ENUM_ITEM + self.count(str(item)) for item in enum)
            kind = schema.get("type", "")
            description = str(schema.get("description") or "").removesuffix(".")
            total += self.count(f"{key}:{kind}:{description}")
        return total

    def tools_framing(self, tools: int) -> int:
        """What the list of tools costs beyond the tools themselves."""
        if not tools:
            return 0
        return ANTHROPIC_TOOL_SYSTEM_PROMPT if self.dialect is Dialect.ANTHROPIC else FUNCTIONS_END


class CachedCounter:
    """A counter that remembers its recent texts: each request repeats the conversation so far, and
    its ledger would otherwise count every earlier message again. Thread-safe."""

    def __init__(self, count: Counter, max_chars: int = 4_000_000) -> None:
        self._count = count
        self._max_chars = max_chars
        self._held = 0
        self._known: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            if (found := self._known.get(text)) is not None:
                self._known.move_to_end(text)
                return found
        tokens = self._count(text)
        with self._lock:
            if text not in self._known:
                self._known[text] = tokens
                self._held += len(text)
            while self._held > self._max_chars and self._known:
                old, _ = self._known.popitem(last=False)
                self._held -= len(old)
        return tokens


def tool_name(spec: dict[str, Any]) -> str:
    """A tool's name in OpenAI's function format or Anthropic's."""
    function = spec.get("function")
    return str((function if isinstance(function, dict) else spec).get("name", ""))


def sent_tools(payload: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The tools of a request body as sent, when they are in a format the accounting reads (OpenAI's
    functions or Anthropic's tools); None otherwise (the app's own specs are counted then)."""
    tools = (payload or {}).get("tools")
    if not isinstance(tools, list) or not all(isinstance(t, dict) and tool_name(t) for t in tools):
        return None
    return tools


def _data_url_size(url: str) -> tuple[int, int] | None:
    head, comma, data = url.partition(",")
    if not comma or not head.startswith("data:") or not head.endswith(";base64"):
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return image_dimensions(raw)
