"""The gate every server tool call passes: persisted rules, per-chat allowances, else the user.

The core never opens a dialog: a decision that needs the user is awaited through the
`Approver` protocol, which the UI (a card in the chat) or the CLI (a y/n question)
implements. The user may edit the arguments; edits are checked against the tool's schema
before anything is sent.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Protocol

import jsonschema  # type: ignore[import-untyped]

from desktop_app.core.config_file import atomic_write

log = logging.getLogger(__name__)

RULES_FILENAME: Final = "approvals.json"
MAX_EDIT_ATTEMPTS: Final = 5


class Decision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_CHAT = "allow_chat"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"


@dataclass(frozen=True)
class ApprovalRequest:
    """A server tool call waiting for the user. `problem` says why a previous edit was refused."""

    call_id: str
    server: str
    tool: str
    exposed_name: str
    description: str | None
    arguments: dict[str, Any]
    input_schema: dict[str, Any]
    problem: str | None = None


@dataclass(frozen=True)
class ApprovalReply:
    """The user's decision; `arguments` replaces the model's arguments when the user edited them."""

    decision: Decision
    arguments: dict[str, Any] | None = None


class Approver(Protocol):
    """Asks the user about one call; implemented by the UI and the CLI, awaited by the engine."""

    async def approve(self, request: ApprovalRequest) -> ApprovalReply: ...


@dataclass(frozen=True)
class StaticApprover:
    """Gives the same answer to every request (headless runs: `--approve deny|allow`)."""

    decision: Decision

    async def approve(self, request: ApprovalRequest) -> ApprovalReply:
        return ApprovalReply(self.decision)


def validate_arguments(schema: dict[str, Any], arguments: Any) -> str | None:
    """None when `arguments` satisfy the tool's input schema, else a one-line reason."""
    if not isinstance(arguments, dict):
        return "the arguments must be a JSON object"
    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator_class.check_schema(schema)
        error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(arguments))
    except Exception as exc:  # a broken server schema (bad keyword, unresolvable $ref) must not block the user
        log.warning("tool schema is unusable, arguments not checked: %s", str(exc).splitlines()[0])
        return None
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


class AlwaysAllowRules:
    """`(server, tool)` pairs the user always allows, kept in a JSON file and revocable."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._rules = self._load()

    def _load(self) -> set[tuple[str, str]]:
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError) as exc:
            # Unreadable rules allow nothing: every call is asked about again, which is safe.
            log.warning("ignoring unreadable approval rules in %s: %s", self.path, exc)
            return set()
        items = doc.get("always_allow", []) if isinstance(doc, dict) else []
        return {
            (item["server"], item["tool"])
            for item in items
            if isinstance(item, dict) and isinstance(item.get("server"), str) and isinstance(item.get("tool"), str)
        }

    def allows(self, server: str, tool: str) -> bool:
        return (server, tool) in self._rules

    def rules(self) -> list[tuple[str, str]]:
        return sorted(self._rules)

    def add(self, server: str, tool: str) -> None:
        with self._lock:
            self._rules.add((server, tool))
            self._save()

    def revoke(self, server: str, tool: str) -> None:
        with self._lock:
            self._rules.discard((server, tool))
            self._save()

    def _save(self) -> None:
        doc = {"always_allow": [{"server": s, "tool": t} for s, t in sorted(self._rules)]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(doc, indent=2) + "\n")


@dataclass(frozen=True)
class Verdict:
    """The outcome for one call: whether it may run, with which arguments, and how it was decided."""

    allowed: bool
    arguments: dict[str, Any]
    decision: Decision | None
    """None when a rule or a per-chat allowance let the call through without asking."""
    reason: str = ""


@dataclass
class ApprovalPolicy:
    """Decides each server tool call: always-rules, then this chat's allowances, then the Approver."""

    approver: Approver
    rules: AlwaysAllowRules | None = None
    _chat: dict[str, set[tuple[str, str]]] = field(default_factory=dict)

    def needs_user(self, chat: str, server: str, tool: str) -> bool:
        if self.rules is not None and self.rules.allows(server, tool):
            return False
        return (server, tool) not in self._chat.get(chat, set())

    def forget_chat(self, chat: str) -> None:
        self._chat.pop(chat, None)

    async def decide(self, chat: str, request: ApprovalRequest) -> Verdict:
        if not self.needs_user(chat, request.server, request.tool):
            return Verdict(True, request.arguments, None)
        pending = request
        for _ in range(MAX_EDIT_ATTEMPTS):
            reply = await self.approver.approve(pending)
            if reply.decision is Decision.DENY:
                return Verdict(False, request.arguments, Decision.DENY, "the user declined")
            arguments = request.arguments if reply.arguments is None else reply.arguments
            problem = validate_arguments(request.input_schema, arguments) if reply.arguments is not None else None
            if problem is not None:
                pending = ApprovalRequest(
                    request.call_id,
                    request.server,
                    request.tool,
                    request.exposed_name,
                    request.description,
                    arguments,
                    request.input_schema,
                    problem=f"The edited arguments do not match the tool's schema: {problem}",
                )
                continue
            if reply.decision is Decision.ALLOW_CHAT:
                self._chat.setdefault(chat, set()).add((request.server, request.tool))
            elif reply.decision is Decision.ALLOW_ALWAYS:
                if self.rules is None:
                    self._chat.setdefault(chat, set()).add((request.server, request.tool))
                else:
                    self.rules.add(request.server, request.tool)
            return Verdict(True, arguments, reply.decision)
        return Verdict(False, request.arguments, Decision.DENY, "the edited arguments never matched the schema")
