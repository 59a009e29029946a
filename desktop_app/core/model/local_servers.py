"""Model servers already running on this computer, found by asking their usual ports for their models.

Only 127.0.0.1 is asked, each port once with a short timeout, with no proxy and no redirect
followed: nothing leaves the computer and nothing is sent but a GET of the model list. What a
server answers is untrusted like any other input: at most `MAX_BYTES` are read, only short printable
model names are kept, and at most `MAX_MODELS` of them.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from desktop_app.core.model.providers import PROVIDERS_BY_ID, Provider
from desktop_app.core.model.settings import ModelSettings

LOOPBACK: Final = "127.0.0.1"
TIMEOUT: Final = 0.8
"""Seconds each port is given to answer: a server on this computer answers in milliseconds."""
DEADLINE: Final = 2.0
"""Seconds a whole answer may take: a server sending a byte now and then is given up on."""
MAX_BYTES: Final = 1024 * 1024
MAX_MODELS: Final = 100
MAX_NAME: Final = 200

Api = Literal["ollama", "openai"]


@dataclass(frozen=True)
class LocalKind:
    """A kind of local model server: its name, its usual port and the model list it serves."""

    label: str
    port: int
    api: Api


KNOWN_SERVERS: Final = (
    LocalKind("Ollama", 11434, "ollama"),
    LocalKind("LM Studio", 1234, "openai"),
    LocalKind("llama.cpp server", 8080, "openai"),
    LocalKind("vLLM", 8000, "openai"),
)
_OWNERS: Final = {"vllm": "vLLM", "llamacpp": "llama.cpp server"}
"""What an OpenAI-style list's `owned_by` says about the server, when it says it."""


@dataclass(frozen=True)
class LocalServer:
    """A server that answered with at least one model."""

    label: str
    port: int
    api: Api
    models: tuple[str, ...]

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def provider(self) -> Provider:
        return PROVIDERS_BY_ID["ollama" if self.api == "ollama" else "compatible"]

    @property
    def api_base(self) -> str:
        """Where the chat sends requests: Ollama's own API, or the OpenAI-style `/v1`."""
        return f"http://{self.address}" + ("" if self.api == "ollama" else "/v1")

    def model_settings(self, model: str) -> ModelSettings:
        """The settings that talk to `model` on this server (no key: local servers need none)."""
        return ModelSettings(self.provider.prefix + model, api_base=self.api_base)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could point anywhere: the list must come from the port that was asked."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())
"""No proxy (a proxy from the environment would receive the request) and no redirects."""


def _model_names(data: Any, api: Api) -> tuple[list[str], set[str]]:
    """The model names a list holds (printable, short, at most `MAX_MODELS`), and who owns them."""
    entries = data.get("models" if api == "ollama" else "data") if isinstance(data, dict) else None
    key = "name" if api == "ollama" else "id"
    names: list[str] = []
    owners: set[str] = set()
    for entry in entries if isinstance(entries, list) else []:
        name = entry.get(key) if isinstance(entry, dict) else None
        if isinstance(name, str) and 0 < len(name) <= MAX_NAME and name.isprintable() and name not in names:
            names.append(name)
            if isinstance(owner := entry.get("owned_by"), str):
                owners.add(owner.lower())
        if len(names) >= MAX_MODELS:
            break
    return names, owners


def _read(kind: LocalKind, timeout: float, deadline: float) -> bytes | None:
    """The model list's bytes, or None: no answer, not a 200, too big or too slow."""
    path = "/api/tags" if kind.api == "ollama" else "/v1/models"
    request = urllib.request.Request(f"http://{LOOPBACK}:{kind.port}{path}", headers={"Accept": "application/json"})
    give_up = time.monotonic() + deadline
    body = b""
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            if response.status != 200:
                return None
            while chunk := response.read1(64 * 1024):
                body += chunk
                if len(body) > MAX_BYTES or time.monotonic() > give_up:
                    return None
    except (OSError, ValueError, urllib.error.URLError):
        return None
    return body


def _ask(kind: LocalKind, timeout: float, deadline: float) -> LocalServer | None:
    body = _read(kind, timeout, deadline)
    if body is None:
        return None
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    names, owners = _model_names(data, kind.api)
    if not names:
        return None
    label = next((_OWNERS[o] for o in sorted(owners) if o in _OWNERS), kind.label)
    return LocalServer(label, kind.port, kind.api, tuple(sorted(names, key=str.lower)))


async def find_local_servers(
    kinds: Sequence[LocalKind] = KNOWN_SERVERS, timeout: float = TIMEOUT, deadline: float = DEADLINE
) -> list[LocalServer]:
    """The servers among `kinds` that answer on 127.0.0.1 with their models, asked all at once."""
    found = await asyncio.gather(*(asyncio.to_thread(_ask, kind, timeout, deadline) for kind in kinds))
    return [server for server in found if server is not None]
