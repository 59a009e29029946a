"""Provider presets for the settings page: how each names its models and where its key comes from."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Provider:
    id: str
    label: str
    prefix: str
    """litellm's routing prefix, e.g. `anthropic/`."""
    suggestions: tuple[str, ...] = ()
    env_var: str | None = None
    default_api_base: str | None = None
    needs_api_base: bool = False
    needs_key: bool = True


PROVIDERS: Final = (
    Provider("openai", "OpenAI", "openai/", ("gpt-4.1", "gpt-4.1-mini", "gpt-4o", "o4-mini"), "OPENAI_API_KEY"),
    Provider(
        "anthropic",
        "Anthropic",
        "anthropic/",
        ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
        "ANTHROPIC_API_KEY",
    ),
    Provider("gemini", "Google Gemini", "gemini/", ("gemini-2.5-pro", "gemini-2.5-flash"), "GEMINI_API_KEY"),
    Provider(
        "openrouter",
        "OpenRouter",
        "openrouter/",
        ("anthropic/claude-sonnet-4.5", "openai/gpt-4.1", "google/gemini-2.5-pro"),
        "OPENROUTER_API_KEY",
    ),
    Provider("compatible", "OpenAI-compatible server", "openai/", (), None, "http://127.0.0.1:8000/v1", True),
    Provider("ollama", "Ollama (local)", "ollama/", (), None, "http://localhost:11434", True, needs_key=False),
)
PROVIDERS_BY_ID: Final = {p.id: p for p in PROVIDERS}


def provider_for_model(model: str) -> Provider:
    """Best guess of the preset a stored model string came from (the compatible one as fallback)."""
    for provider in PROVIDERS:
        if provider.id != "compatible" and model.startswith(provider.prefix):
            return provider
    return PROVIDERS_BY_ID["compatible"]


def provider_for(model: str, api_base: str | None) -> Provider:
    """The preset a model string and base URL describe: an `openai/` model at a base URL is a compatible server."""
    provider = provider_for_model(model)
    return PROVIDERS_BY_ID["compatible"] if api_base and provider.id == "openai" else provider


def key_secret_name(provider: Provider) -> str:
    """Where a provider's API key lives in the secret store."""
    return f"LLM_API_KEY_{provider.id.upper()}"


def _fetch_ollama_tags(api_base: str, timeout: float) -> list[str]:
    url = api_base.rstrip("/") + "/api/tags"
    with urllib.request.urlopen(url, timeout=timeout) as response:
        data = json.loads(response.read().decode("utf-8"))
    models = data.get("models") if isinstance(data, dict) else None
    return sorted(m["name"] for m in models or [] if isinstance(m, dict) and isinstance(m.get("name"), str))


async def ollama_models(api_base: str, timeout: float = 1.5) -> list[str]:
    """The models a local Ollama has installed, or [] when it does not answer."""
    try:
        return await asyncio.to_thread(_fetch_ollama_tags, api_base, timeout)
    except (OSError, ValueError):
        return []


def _fetch_openai_models(api_base: str, api_key: str | None, timeout: float) -> list[str]:
    url = api_base.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as response:
        data = json.loads(response.read().decode("utf-8"))
    models = data.get("data") if isinstance(data, dict) else None
    return sorted(m["id"] for m in models or [] if isinstance(m, dict) and isinstance(m.get("id"), str))


async def compatible_models(api_base: str, api_key: str | None = None, timeout: float = 1.5) -> list[str]:
    """The models an OpenAI-compatible server lists at `/models` (llama.cpp, vLLM, LM Studio…), or []."""
    try:
        return await asyncio.to_thread(_fetch_openai_models, api_base, api_key, timeout)
    except (OSError, ValueError):
        return []
