"""Token counts without the model library equal litellm's own, and need no litellm to compute."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from desktop_app.core.chat import tokens
from desktop_app.core.chat.tokens import (
    count_tokens,
    encoding_name,
    preload,
    release_encodings,
    uses_library_tokenizer,
)
from desktop_app.core.model.llm import litellm_module
from tests.llm_server import LITELLM_WARNINGS

pytestmark = LITELLM_WARNINGS

TEXTS = (
    "",
    "hello world <|endoftext|> and a special token written as text",
    "A catalog line: - docs://guides/setup.md — Setup (text/markdown, 2.1 KB): how to start.\n" * 60,
    "ünïcödé 日本語 emoji 🚀 " * 300,
)
MODELS = (
    "gpt-4o",
    "openai/gpt-4o-mini",
    "openai/gpt-4.1-mini",
    "openai/gpt-5",
    "openai/o3-mini",
    "gpt-3.5-turbo",
    "openai/gpt-4",
    "azure/gpt-4o",
    "openrouter/openai/gpt-4o",
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-3-5-sonnet-20240620",
    "gemini/gemini-2.5-flash",
    "vertex_ai/gemini-2.5-pro",
    "mistral/mistral-large-latest",
    "ollama/llama3",
    "ollama/llama-3-8b",
    "hosted_vllm/Qwen2.5-7B",
    "openai/local-model",
    "groq/llama-3.1-8b-instant",
    "openai/gpt-oss-20b",
)


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> Any:
    """litellm with its token counter on (the app switches it off for its requests), as the reference."""
    module = litellm_module()
    monkeypatch.setattr(module, "disable_token_counter", False)
    return module


@pytest.mark.parametrize("model", MODELS)
def test_counts_equal_litellms_token_counter(model: str, litellm: Any) -> None:
    assert not uses_library_tokenizer(model)
    for text in TEXTS:
        assert count_tokens(model, text) == litellm.token_counter(model=model, text=text), (model, text[:40])


@pytest.mark.parametrize(
    ("model", "expected"),
    [("gpt-4o", "o200k_base"), ("openai/gpt-5.1", "o200k_base"), ("anthropic/claude-sonnet-4-5", "cl100k_base")],
)
def test_encodings_follow_the_model_family(model: str, expected: str) -> None:
    assert encoding_name(model) == expected


def test_models_with_a_tokenizer_of_their_own_are_counted_by_litellm(litellm: Any) -> None:
    for model in ("claude-sonnet-4-5", "deepseek/deepseek-chat", "cohere/command-r-plus"):
        assert uses_library_tokenizer(model)
        for text in TEXTS[1:3]:
            assert count_tokens(model, text) == litellm.token_counter(model=model, text=text) > 0


def test_counting_loads_no_model_library_and_nothing_from_the_network() -> None:
    # A fresh interpreter with no route out: the encodings come from the installed package.
    code = (
        "import socket, sys\n"
        "def refuse(*args, **kwargs): raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from desktop_app.core.chat.tokens import count_tokens\n"
        "print(count_tokens('gpt-4o', 'hello world'), count_tokens('anthropic/claude-sonnet-4-5', 'hello world'))\n"
        "print('litellm' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2", "False"]


def test_the_encoding_lives_in_a_process_the_app_ends_without_waiting() -> None:
    before = count_tokens("openai/gpt-4.1-mini", TEXTS[2])
    first = tokens._tokenizer._process
    assert first is not None and first.poll() is None
    release_encodings()
    assert not tokens._tokenizer.running
    assert first.wait(timeout=30) != 0, "ended, not asked to tidy up 600k allocations"
    assert count_tokens("openai/gpt-4.1-mini", TEXTS[2]) == before, "started again for the next count"
    preload("gpt-3.5-turbo")
    assert tokens._tokenizer.running


def test_a_release_asked_during_a_count_ends_the_process_after_it() -> None:
    import threading

    preload("gpt-4o")
    process = tokens._tokenizer._process
    assert process is not None
    with tokens._tokenizer._lock:  # a count running in another thread holds the process
        done = threading.Event()
        threading.Thread(target=lambda: (release_encodings(), done.set())).start()
        assert done.wait(10), "asking never waits for the running count"
        assert process.poll() is None
    assert count_tokens("gpt-4o", "hello world") == 2
    assert not tokens._tokenizer.running, "the count that was running ended it"


def test_a_tokenizer_process_that_dies_is_started_again() -> None:
    preload("gpt-4o")
    process = tokens._tokenizer._process
    assert process is not None
    process.kill()
    process.wait(timeout=30)
    assert count_tokens("gpt-4o", "hello world") == 2
    assert tokens._tokenizer._process is not process


def test_an_encoding_read_back_from_its_cached_copy_counts_the_same(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    release_encodings()
    fresh = count_tokens("openai/gpt-4.1-mini", TEXTS[3])
    copies = list(tmp_path.rglob("o200k_base-*.marshal"))
    assert len(copies) == 1 and copies[0].stat().st_size > 1_000_000
    release_encodings()
    assert count_tokens("openai/gpt-4.1-mini", TEXTS[3]) == fresh
    copies[0].write_bytes(copies[0].read_bytes()[:1000])  # a copy cut short (a full disk, a crash)
    release_encodings()
    assert count_tokens("openai/gpt-4.1-mini", TEXTS[3]) == fresh
    assert copies[0].stat().st_size > 1_000_000  # written whole again
    release_encodings()


def test_the_process_outlives_the_thread_that_started_it() -> None:
    import threading

    release_encodings(quitting=True)
    starter = threading.Thread(target=preload, args=("gpt-4o",))  # counts start it from pool threads
    starter.start()
    starter.join()
    process = tokens._tokenizer._process
    assert process is not None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=1)  # not killed with its thread (a zombie nobody collected)
    assert count_tokens("gpt-4o", "hello world") == 2 and tokens._tokenizer._process is process
