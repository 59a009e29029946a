"""The app counts a request the way providers bill it: OpenAI's published example, Anthropic's framing."""

from __future__ import annotations

import base64

from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.ledger.accounting import (
    ANTHROPIC_TOOL_SYSTEM_PROMPT,
    Accounting,
    CachedCounter,
    Dialect,
    dialect_for,
)
from tests.servers.fixture_server import png_bytes

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {
                    "type": "string",
                    "description": "The unit of temperature to return",
                    "enum": ["celsius", "fahrenheit"],
                },
            },
            "required": ["location"],
        },
    },
}


def test_openai_counts_match_the_figure_openai_reported_for_its_own_example() -> None:
    # OpenAI's cookbook, "How to count tokens with tiktoken", counting tokens for chat completions with
    # tool calls: gpt-4o reports 101 prompt tokens for this request.
    accounting = Accounting(lambda text: count_tokens("openai/gpt-4o", text), Dialect.OPENAI)
    messages = [
        {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
        {"role": "user", "content": "What's the weather like in San Francisco?"},
    ]
    counted = sum(accounting.framing(m) + accounting.count(m["content"]) for m in messages)
    counted += accounting.reply_priming() + accounting.tool(WEATHER_TOOL) + accounting.tools_framing(1)
    assert counted == 101


def test_anthropic_counts_each_tool_as_json_plus_the_tool_use_prompt() -> None:
    accounting = Accounting(lambda text: len(text.split()), Dialect.ANTHROPIC)
    assert accounting.tools_framing(0) == 0 and accounting.tools_framing(3) == ANTHROPIC_TOOL_SYSTEM_PROMPT
    definition = '{"name": "get_current_weather", "description": "Get the current weather in a given location"'
    assert accounting.tool(WEATHER_TOOL) > len(definition.split())
    assert accounting.reply_priming() == 0


def test_tool_calls_and_images_are_counted() -> None:
    accounting = Accounting(lambda text: len(text), Dialect.OPENAI)
    call = {"role": "assistant", "tool_calls": [{"function": {"name": "ab", "arguments": "{}"}}]}
    assert accounting.tool_calls(call) == 3 + 2 + 2
    url = "data:image/png;base64," + base64.b64encode(png_bytes()).decode()
    assert accounting.image(url) == 85 + 170  # a 16x12 picture is one tile
    assert Accounting(len, Dialect.ANTHROPIC).image(url) == 1
    assert accounting.image("https://example.test/cat.png") == 1000  # unknown size: an estimate


def test_which_dialect_a_model_is_billed_in() -> None:
    assert dialect_for("anthropic/claude-sonnet-4-5") is Dialect.ANTHROPIC
    assert dialect_for("claude-opus-4-1") is Dialect.ANTHROPIC
    for model in ("openai/gpt-4o", "openrouter/anthropic/claude-sonnet-4.5", "ollama/llama3", "gemini/gemini-2.5-pro"):
        assert dialect_for(model) is Dialect.OPENAI


def test_the_cached_counter_counts_each_text_once_and_stays_bounded() -> None:
    counted: list[str] = []
    counter = CachedCounter(lambda text: counted.append(text) or len(text), max_chars=10)
    assert [counter("abcd"), counter("abcd"), counter(""), counter("efghij"), counter("klm")] == [4, 4, 0, 6, 3]
    assert counted == ["abcd", "efghij", "klm"]
    assert counter("abcd") == 4 and counted[-1] == "abcd"  # pushed out by the later texts, counted again
