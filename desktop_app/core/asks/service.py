"""What every server's questions share: the way to the user, the model sampling runs on, the roots.

The host owns one `AskService`; each connection answers its server through it. The window and
`mcp-desk run` fill it in: the asker (cards or flags), the user's model for sampling, the
app-wide default roots and the chat the user is in.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from desktop_app.core.asks.question import QuestionGate
from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.expansion import SecretLookup
from desktop_app.core.model.settings import ModelSettings
from desktop_app.core.state_file import items_of, load_or_set_aside

log = logging.getLogger(__name__)

SAMPLING_GRANTS_FILENAME: Final = "sampling.json"


@dataclass(frozen=True)
class SamplingModel:
    """The user's model as sampling uses it: the chat's settings, the provider preset, the key's store."""

    settings: ModelSettings
    provider: str = ""
    """The settings page's provider preset id; model hints are matched within it."""
    secrets: SecretLookup | None = None


class SamplingGrants:
    """Who may sample without asking: servers allowed for one chat, and servers always allowed (kept on disk)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._chat: set[tuple[str, str]] = set()
        self._always: set[str] = self._load()

    def _load(self) -> set[str]:
        if self.path is None:
            return set()
        document = load_or_set_aside(self.path)  # damaged: nothing allowed, every request is asked
        return {s for s in items_of(document or {}, "always_allow") if isinstance(s, str)}

    def allows(self, server: str, chat: str | None) -> bool:
        return server in self._always or (chat is not None and (chat, server) in self._chat)

    def allow_chat(self, server: str, chat: str | None) -> None:
        if chat is not None:
            self._chat.add((chat, server))

    def allow_always(self, server: str) -> None:
        with self._lock:
            self._always.add(server)
            self._save()

    def revoke(self, server: str) -> None:
        with self._lock:
            self._always.discard(server)
            self._chat = {(c, s) for c, s in self._chat if s != server}
            self._save()

    def always(self) -> list[str]:
        return sorted(self._always)

    def _save(self) -> None:
        if self.path is None:
            return
        atomic_write(self.path, json.dumps({"always_allow": sorted(self._always)}, indent=2) + "\n")


class AskService:
    """The shared side of answering servers; plain attributes the composition root sets."""

    def __init__(self, questions: QuestionGate, grants: SamplingGrants | None = None) -> None:
        self.questions = questions
        self.grants = grants or SamplingGrants()
        self.model: SamplingModel | None = None
        """The model sampling requests run on; None refuses them ("no model is configured")."""
        self.default_roots: tuple[str, ...] = ()
        """Roots for servers that list none of their own (Settings)."""
        self.extra_roots: tuple[str, ...] = ()
        """Roots added to every server's (`mcp-desk run --root`)."""
        self.chat: str | None = None
        """The conversation the user is in, for "allow for this chat"."""
        self.on_refusal: Callable[[str, str], None] | None = None
        """Told (server, what was refused and why) whenever a request is refused without asking."""
