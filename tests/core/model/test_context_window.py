"""A model's context window comes from the model library's own table, found without importing the library:
with or without the provider's prefix, and None for a name the table does not know."""

from __future__ import annotations

import sys

from desktop_app.core.model.context_window import context_window


def test_a_models_window_is_read_from_the_library_table_without_importing_it() -> None:
    imported = "litellm" in sys.modules
    assert context_window("openai/gpt-4o-mini") == context_window("gpt-4o-mini") == 128_000
    assert context_window("anthropic/claude-sonnet-4-5") == 200_000
    assert context_window("ollama/llama3") == 8_192, "a provider's own key, prefix and all"
    assert context_window("hosted_vllm/my-own-finetune") is None
    assert context_window("openai/scripted") is None
    assert context_window('openai/"}: {"max_input_tokens": 5}') is None, "a name is a key, never a fragment"
    assert ("litellm" in sys.modules) == imported, "the library is not imported to read its table"
