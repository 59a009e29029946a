"""Asking the user before a skill's body enters a conversation, and remembering the answer, pinned.

The question (`SkillQuestion`) joins the ask family: the window shows a card, `mcp-desk run`
answers with `--approve`, tests script it. It shows the skill, its server, its files with their
sizes, the permissions its front matter asks for (never granted), the other servers that offer the
same address (only the one named loads: the user can tell which server's text this is) and the
instructions themselves.
The answer is once, for this chat, or always (kept in `skills.json`, like tool approvals), and
holds for the set of `{uri, digest}` the user was shown (`SkillPin`): once the server changes a
file, adds or removes one, the skill is asked about again, and the question says what changed.
A skill of a server the user trusts loads without asking, as that server's instructions do.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from desktop_app.core.asks.question import Asker, Question
from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.extensions.skills import SkillEntry, SkillFile
from desktop_app.core.skills.manifest import SkillPin
from desktop_app.core.state_file import items_of, load_or_set_aside

log = logging.getLogger(__name__)

SKILL_RULES_FILENAME: Final = "skills.json"
PREVIEW_CHARS: Final = 4000


class SkillDecision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_CHAT = "allow_chat"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"


@dataclass(frozen=True)
class SkillReply:
    decision: SkillDecision
    by: str = "user"
    """Who answered: "user", "flag" (`mcp-desk run --approve`) or "nobody" (no answer in time)."""


@dataclass(frozen=True, kw_only=True)
class SkillQuestion(Question[SkillReply]):
    """May this skill's instructions join the conversation? (The question's `server` offers the skill.)"""

    uri: str
    name: str
    description: str
    files: tuple[SkillFile, ...]
    instructions: str
    """What it asks the model to do: the body of its `SKILL.md` (checked against its digest already)."""
    asks_for: tuple[str, ...] = ()
    """Permissions its front matter asks for (`allowed-tools: ...`): shown, never granted."""
    changes: tuple[str, ...] = ()
    """Set when the user allowed an earlier version of this skill: what changed since."""
    also_offered_by: tuple[str, ...] = ()
    """Other servers offering something at the same URI (a resource or a skill): this question is about `server`'s."""

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def preview(self) -> str:
        text = self.instructions
        return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"

    def fallback(self) -> SkillReply:
        return SkillReply(SkillDecision.DENY, by="nobody")


class SkillRules:
    """Skills the user always allows, by `(server, uri)`, each for one set of files; kept in a JSON file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._rules = self._load()

    def _load(self) -> dict[tuple[str, str], SkillPin]:
        if self.path is None:
            return {}
        document = load_or_set_aside(self.path)  # damaged: nothing allowed, every request is asked
        rules: dict[tuple[str, str], SkillPin] = {}
        for item in items_of(document or {}, "always_allow"):
            pin = _pin_from(item)
            if pin is not None:
                rules[(item["server"], item["uri"])] = pin
        return rules

    def pin(self, server: str, uri: str) -> SkillPin | None:
        return self._rules.get((server, uri))

    def rules(self) -> list[tuple[str, str]]:
        return sorted(self._rules)

    def add(self, server: str, uri: str, pin: SkillPin) -> None:
        with self._lock:
            self._rules[(server, uri)] = pin
            self._save()

    def revoke(self, server: str, uri: str) -> None:
        with self._lock:
            self._rules.pop((server, uri), None)
            self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        items = [
            {"server": server, "uri": uri, "digest": pin.digest, "files": [list(f) for f in pin.files]}
            for (server, uri), pin in sorted(self._rules.items())
        ]
        atomic_write(self.path, json.dumps({"always_allow": items}, indent=2, ensure_ascii=False) + "\n")


def _pin_from(item: Any) -> SkillPin | None:
    """The pin a saved rule holds, or None when it is unreadable or its files do not hash to its digest."""
    if not isinstance(item, dict) or not isinstance(item.get("server"), str) or not isinstance(item.get("uri"), str):
        return None
    files = item.get("files")
    if not isinstance(files, list) or not all(
        isinstance(f, list) and len(f) == 2 and all(isinstance(x, str) for x in f) for f in files
    ):
        return None
    pin = SkillPin.of(SkillEntry(item["uri"], {}, tuple(SkillFile(u, d, 0) for u, d in files)))
    return pin if pin.digest == item.get("digest") else None


@dataclass(frozen=True)
class SkillVerdict:
    allowed: bool
    by: str
    """"user", "rule" (always allowed), "chat" (allowed for this chat), "trusted", "flag" or "nobody"."""


class SkillConsent:
    """Decides whether a skill may load: the user's rules and this chat's allowances, else the `asker`."""

    def __init__(self, asker: Asker, rules: SkillRules | None = None) -> None:
        self.asker = asker
        self.rules = rules or SkillRules(None)
        self._chat: dict[str, dict[tuple[str, str], SkillPin]] = {}

    def allowance(self, chat: str, server: str, entry: SkillEntry) -> tuple[str | None, list[str]]:
        """Who already allowed `entry` as it is now ("rule", "chat" or None), and else what changed since."""
        pin = SkillPin.of(entry)
        changes: list[str] = []
        for by, earlier in (("rule", self.rules.pin(server, entry.uri)), ("chat", self._chat_pin(chat, server, entry))):
            if earlier is None:
                continue
            if earlier.digest == pin.digest:
                return by, []
            changes = changes or earlier.changes_to(pin)
        return None, changes

    def _chat_pin(self, chat: str, server: str, entry: SkillEntry) -> SkillPin | None:
        return self._chat.get(chat, {}).get((server, entry.uri))

    async def decide(self, chat: str, question: SkillQuestion, entry: SkillEntry) -> SkillVerdict:
        """Let `entry` load by rule or allowance, or ask `question` (with what changed) and remember the answer."""
        by, changes = self.allowance(chat, question.server, entry)
        if by is not None:
            return SkillVerdict(True, by)
        asked = replace(question, changes=tuple(changes)) if changes else question
        reply = await self.asker.ask(asked)
        if reply.decision is SkillDecision.DENY:
            return SkillVerdict(False, reply.by)
        pin = SkillPin.of(entry)
        if reply.decision is SkillDecision.ALLOW_ALWAYS:
            self.rules.add(question.server, entry.uri, pin)
        elif reply.decision is SkillDecision.ALLOW_CHAT:
            self._chat.setdefault(chat, {})[(question.server, entry.uri)] = pin
        return SkillVerdict(True, reply.by)

    def forget_chat(self, chat: str) -> None:
        self._chat.pop(chat, None)
