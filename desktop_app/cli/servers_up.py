"""What `mcp-desk run` and `mcp-desk replay` share: the servers to start, the secrets, the approvers,
and the wait until the servers are up (or the one line saying why none is)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Final, TypeVar, cast

from desktop_app.cli.approval_text import approval_question, refusal_reason
from desktop_app.cli.asks import ask_line
from desktop_app.cli.entry import Report, UsageError
from desktop_app.core.asks.question import Asker, Question
from desktop_app.core.chat.approval import ApprovalReply, ApprovalRequest, DecidedBy, Decision, StaticApprover
from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import load_config
from desktop_app.core.expansion import SecretLookup
from desktop_app.core.host import ServerHost
from desktop_app.core.paths import data_dir, default_config_path
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.secret_store import SecretStoreError, open_secret_store
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.core.terminal_text import printable

R = TypeVar("R")

EXIT_NO_SERVER: Final = 4
NO_RESTARTS: Final = RestartPolicy(max_attempts=0)
"""One attempt per server: a script should fail fast, not wait through restart backoff."""
SETTLE_MARGIN_S: Final = 5.0
APPROVE_CHOICES: Final = ("deny", "allow", "ask")


def configured_servers(config: Path | None) -> list[ServerConfig]:
    """The enabled servers of `config`, else of the user's configuration."""
    path = config or default_config_path()
    if config is not None and not config.is_file():
        raise UsageError(f"config file not found: {config}")
    try:
        loaded = load_config(path)
    except ConfigError as exc:
        raise UsageError(f"configuration error: {exc}") from None
    if loaded.error is not None:
        raise UsageError(f"configuration error: {loaded.error}")
    return [server for server in loaded.servers.values() if not server.disabled]


def open_secrets() -> SecretLookup | None:
    try:
        return open_secret_store(data_dir())
    except SecretStoreError as exc:
        logging.getLogger(__name__).info("secrets unavailable: %s", exc)
        return None


async def settle(host: ServerHost, servers: list[ServerConfig], report: Report) -> int | None:
    """Wait for every server to connect; `EXIT_NO_SERVER` (said on `report`) when none can be used."""
    if not servers:
        return None
    await host.wait_settled(max(s.timeout for s in servers) + SETTLE_MARGIN_S)
    waiting = [c.name for c in host.connections.values() if c.status.state is ServerState.NEEDS_SIGN_IN]
    if waiting:
        report(_sign_in_needed(waiting))
        return EXIT_NO_SERVER
    for connection in host.connections.values():
        if (denial := connection.denials.offer) is not None:  # what to add to the entry, on one line
            report(printable(denial.line(connection.name)))
    failed = [c for c in host.connections.values() if c.status.state is not ServerState.READY]
    if len(failed) == len(servers):
        reasons = "; ".join(f"{c.name}: {_why(c.status)}" for c in failed)
        report(f"no server could be reached ({reasons})")
        return EXIT_NO_SERVER
    for connection in failed:
        report(f"warning: server {connection.name} is unavailable: {_why(connection.status)}")
    for connection in host.connections.values():
        if connection.status.state is ServerState.READY and connection.confinement.sandboxed(connection.config):
            report(f"server {connection.name}: {connection.confinement.protection(connection.config)}")
    return None


def _sign_in_needed(names: list[str]) -> str:
    """The one line for servers that need a sign-in first (the stored tokens were used already)."""
    if len(names) == 1:
        return f"server '{names[0]}' needs sign-in: run 'mcp-desk login {names[0]}'"
    commands = " and ".join(f"'mcp-desk login {name}'" for name in names)
    return f"servers {', '.join(names)} need sign-in: run {commands}"


def _why(status: ServerStatus) -> str:
    """Why a server is unavailable, with its last stderr lines, on one line."""
    said = " | ".join(status.last_stderr(3))
    return f"{status.reason or status.summary}" + (f" [stderr: {said}]" if said else "")


class RefusingApprover:
    """`--approve deny`: refuses every call the rules leave open and says so on `report`, one line each."""

    def __init__(self, report: Report) -> None:
        self._report = report

    async def ask(self, question: Question[R]) -> R:
        if not isinstance(question, ApprovalRequest):
            return question.fallback()
        arguments = _shorten(json.dumps(question.arguments, ensure_ascii=False), 200)
        self._report(
            f"refused tool {question.tool} on server {question.server} with {arguments} ({refusal_reason(question)})"
        )
        return cast(R, ApprovalReply(Decision.DENY, by=DecidedBy.FLAG))


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalApprover:
    """Asks on the terminal for each server tool call (`--approve ask`): y allows, anything else declines.

    The one asker of the command line whose answers are the live user's (a key, now)."""

    async def ask(self, question: Question[R]) -> R:
        if not isinstance(question, ApprovalRequest):
            return question.fallback()
        return cast(R, await self._approve(question))

    async def _approve(self, request: ApprovalRequest) -> ApprovalReply:
        question = printable(approval_question(request))
        answer = (await asyncio.to_thread(ask_line, question)).strip()  # "" at end of input declines
        if answer.lower() in ("y", "yes"):
            return ApprovalReply(Decision.ALLOW_ONCE, by=DecidedBy.USER)
        reason = "" if answer.lower() in ("", "n", "no") else answer
        return ApprovalReply(Decision.DENY, reason=reason, by=DecidedBy.USER)


def approver(choice: str, report: Report) -> Asker:
    """The `--approve` choice as an asker: deny (saying so), allow, or ask on the terminal."""
    if choice == "ask":
        return TerminalApprover()
    return StaticApprover(Decision.ALLOW_ONCE) if choice == "allow" else RefusingApprover(report)
