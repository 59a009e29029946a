"""Which key reaches the provider, and how failures read: real litellm against a real local HTTP server."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.events import ChatError, ChatEvent
from desktop_app.core.host import ServerHost
from desktop_app.core.model.llm import litellm_module
from desktop_app.core.model.settings import NO_KEY_PLACEHOLDER, ModelSettings, resolve_api_key
from tests.engine_kit import finished, of_type, run
from tests.llm_server import LITELLM_WARNINGS, RecordingApprover, ScriptedLLM, failure, text
from tests.servers.everything import free_port

pytestmark = [pytest.mark.anyio, *LITELLM_WARNINGS]


class Secrets(dict[str, str]):
    """The secret store's lookup side."""


KEY_NAMES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_ADMIN_KEY")


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_NAMES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def llm(llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> ScriptedLLM:
    """The scripted model without the key the shared fixture sets: these tests are about where keys come from."""
    for name in KEY_NAMES:
        monkeypatch.delenv(name, raising=False)
    return llm


async def turn(settings: ModelSettings, secrets: Secrets | None = None) -> list[ChatEvent]:
    return await run(ChatEngine(ServerHost(), settings, ApprovalPolicy(RecordingApprover()), secrets=secrets), "hi")


def answer(events: list[ChatEvent]) -> str:
    final = finished(events)
    assert final.reason == "stop", events
    return final.text


def error(events: list[ChatEvent]) -> str:
    [problem] = of_type(events, ChatError)
    return problem.message


async def test_a_local_server_works_without_any_key(llm: ScriptedLLM) -> None:
    llm.queue(text("Hello from a local model."))
    settings = ModelSettings("openai/local-model", api_base=llm.url, api_key_secret="LLM_API_KEY_COMPATIBLE")
    assert answer(await turn(settings, Secrets())) == "Hello from a local model."
    assert llm.requests[0].headers["authorization"] == f"Bearer {NO_KEY_PLACEHOLDER}"


async def test_a_stored_key_then_the_environment_are_used_before_the_placeholder(
    llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ModelSettings("openai/local-model", api_base=llm.url, api_key_secret="LLM_API_KEY_COMPATIBLE")
    llm.queue(text("one"), text("two"))
    assert answer(await turn(settings, Secrets(LLM_API_KEY_COMPATIBLE="sk-stored"))) == "one"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert answer(await turn(settings, Secrets())) == "two"
    assert [r.headers["authorization"] for r in llm.requests] == ["Bearer sk-stored", "Bearer sk-from-env"]


def test_the_library_is_loaded_offline_without_reading_a_dot_env_file() -> None:
    litellm = litellm_module()
    assert os.environ["LITELLM_OFFLINE_MODE"] == "true" and os.environ["LITELLM_MODE"] == "PRODUCTION"
    assert litellm.disable_token_counter is True  # the app counts tokens itself (core/chat/tokens.py)


async def test_a_call_does_not_copy_the_chat_for_loggers_the_app_has_none_of() -> None:
    litellm_module()
    from litellm.litellm_core_utils.logging_utils import truncate_base64_in_messages_async

    history = [{"role": "user", "content": f"message {i} " * 500} for i in range(500)]
    assert await truncate_base64_in_messages_async(history) is history  # not walked nor copied


def test_no_placeholder_where_a_key_is_really_needed_or_none_is_used() -> None:
    assert resolve_api_key(ModelSettings("openai/gpt-4.1"), None, {}) is None  # litellm says the key is missing
    assert resolve_api_key(ModelSettings("ollama/llama3", api_base="http://localhost:11434"), None, {}) is None
    assert resolve_api_key(ModelSettings("hosted_vllm/m", api_base="http://h/v1"), None, {}) == NO_KEY_PLACEHOLDER


async def test_failures_before_any_answer_carry_no_http_status(llm: ScriptedLLM) -> None:
    missing_key = error(await turn(ModelSettings("openai/gpt-4.1", max_retries=0)))
    assert missing_key.startswith("openai/gpt-4.1: the request was not sent: Missing credentials")
    refused = ModelSettings("openai/local-model", api_base=f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    assert error(await turn(refused)) == "openai/local-model: cannot reach the provider: Connection error."
    # A status the server really sent is still shown.
    llm.queue(failure(401, "invalid api key"))
    answered = error(await turn(ModelSettings("openai/local-model", api_base=llm.url, max_retries=0)))
    assert answered == "openai/local-model: authentication failed (HTTP 401): invalid api key"


def test_an_unforeseen_failure_reads_as_words_not_a_class_name() -> None:
    from desktop_app.core.model.llm import describe_provider_error

    class OddLibraryError(Exception):
        pass

    assert (
        describe_provider_error("openai/x", OddLibraryError(), streaming=True) == "openai/x: the provider call failed"
    )
    shown = describe_provider_error("openai/x", OddLibraryError("the stream ended early"), streaming=True)
    assert shown == "openai/x: the provider call failed: the stream ended early"


def test_the_sdk_preloaded_at_idle_is_not_the_model_library_and_stays_out_of_collection() -> None:
    code = (
        "import asyncio, gc, sys\n"
        "from desktop_app.core.model.llm import preload_openai_sdk\n"
        "asyncio.run(preload_openai_sdk())\n"
        "print('openai' in sys.modules, 'litellm' in sys.modules, gc.get_freeze_count() > 50_000, gc.isenabled())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "True", "True"]
