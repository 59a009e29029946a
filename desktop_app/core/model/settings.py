"""Which model to talk to and how a turn behaves; plain values a settings page can edit."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from desktop_app.core.expansion import SecretLookup
from desktop_app.core.log_redaction import remember_secrets
from desktop_app.core.model.providers import provider_for_model

DEFAULT_MAX_TOKENS: Final = 4096
DEFAULT_CATALOG_BUDGET: Final = 1500
DEFAULT_READ_CAP_BYTES: Final = 2 * 1024 * 1024
DEFAULT_MAX_ITERATIONS: Final = 20
DEFAULT_MAX_TOOLS: Final = 100
"""Server tools per model call; OpenAI refuses more than 128 in all, and each costs context."""


@dataclass(frozen=True)
class ModelSettings:
    """A litellm model string (`openai/gpt-4o-mini`, `anthropic/claude-…`, `ollama/llama3`) and its options.

    `max_tokens` is always sent: some providers otherwise reserve 64k+ tokens of output.
    `api_key_secret` names a secret in the app's store; without it (or when it is not stored)
    litellm reads the provider's usual environment variable (`OPENAI_API_KEY`, …); a server at
    `api_base` with neither gets a placeholder (`resolve_api_key`).
    """

    model: str
    api_base: str | None = None
    api_key_secret: str | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float | None = None
    timeout: float = 120.0
    max_retries: int = 2
    """Retries of a failed request (HTTP 429/5xx, connection errors), passed to litellm."""

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ValueError("the model name cannot be empty")
        if self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be positive, not {self.max_tokens}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries cannot be negative, not {self.max_retries}")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout}")


@dataclass(frozen=True)
class ChatOptions:
    """How the engine builds context and runs a turn.

    `catalog_budget` bounds the catalog part of the system prompt (tokens); beyond it the
    prompt summarises and offers `search_resources`. `read_cap_bytes` is the safety cap on the
    text one `read_resource` returns. `pdf_text` and `images_to_model` are opt-ins: PDF text
    extracted with PyMuPDF, images sent as image parts (vision models only). `connecting_wait` is how
    long a message sent while servers are still connecting waits for them (`chat/servers_connecting.py`).
    """

    catalog_budget: int = DEFAULT_CATALOG_BUDGET
    read_cap_bytes: int = DEFAULT_READ_CAP_BYTES
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    pdf_text: bool = False
    images_to_model: bool = False
    max_tools: int = DEFAULT_MAX_TOOLS
    connecting_wait: float = 15.0

    def __post_init__(self) -> None:
        if not 1 <= self.max_tools <= 120:
            raise ValueError(f"max_tools must be between 1 and 120, not {self.max_tools}")
        if self.max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, not {self.max_iterations}")
        if self.connecting_wait < 0:
            raise ValueError(f"the wait for connecting servers cannot be negative, not {self.connecting_wait}")
        if self.catalog_budget < 100:
            raise ValueError(f"the catalog budget must be at least 100 tokens, not {self.catalog_budget}")
        if self.read_cap_bytes < 1024:
            raise ValueError(f"the read cap must be at least 1024 bytes, not {self.read_cap_bytes}")


NO_KEY_PLACEHOLDER: Final = "no-key-required"
"""Sent to a server at a base URL when no key exists anywhere: OpenAI-style clients refuse to send a
request without one, while local servers (llama.cpp, vLLM, LM Studio, Ollama's OpenAI endpoint) need none."""


def resolve_api_key(
    settings: ModelSettings, secrets: SecretLookup | None, environ: Mapping[str, str] | None = None
) -> str | None:
    """The key to send: the one stored in the app, else None so litellm reads the provider's
    environment variable; a server at a base URL with neither gets `NO_KEY_PLACEHOLDER`."""
    if settings.api_key_secret and secrets is not None and (stored := secrets.get(settings.api_key_secret)):
        remember_secrets([stored])  # no log line may show it
        return stored
    provider = provider_for_model(settings.model)
    environ = os.environ if environ is None else environ
    if not settings.api_base or not provider.needs_key or (provider.env_var and environ.get(provider.env_var)):
        return None
    return NO_KEY_PLACEHOLDER
