"""Carrying out an install plan: ask for consent, then secrets, files and the entry, or nothing at all.

Every install (registry, bundle, a domain's card; the window and `mcp-desk install`) passes here,
so this is where the organisation's policy (`InstallRules`) refuses one, before anything is asked.
The consent is a `Question` of the ask family, so the window answers it with a card, the command
line with `--yes` or a terminal prompt, tests with a script. It carries the whole command (never
shortened), the warning that it will run on this computer, and the sandbox a local server gets
(`sandbox_offer`); the reply says whether to install, and whether in the sandbox. After a yes,
secrets are stored, bundle files unpacked and the entry saved; if any step fails, the earlier ones are undone, so
`servers.json`, the secret store and the bundles folder are as they were. Once the entry is saved,
the install is written in the app's own record (`install_records`): the organisation's `registry`
rules believe an entry's `origin` only where that record backs it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from desktop_app.core.asks.question import Asker, Question, ask_user
from desktop_app.core.install_records import InstallRecords
from desktop_app.core.registry.bundle import remove_bundle_files
from desktop_app.core.registry.plan import InstallPlan, command_line
from desktop_app.core.registry.sandbox_offer import SandboxOffer, applies, choosing, keeping_the_sandbox, offer_for
from desktop_app.core.sandbox.probe import SandboxSupport, system_support
from desktop_app.core.secret_store import SecretBackend, SecretStore, SecretStoreError
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.transports import SandboxProbe

log = logging.getLogger(__name__)

SaveEntry = Callable[[ServerConfig, str | None], None]
"""Writes the entry (replacing `previous_name` on updates); raises `ConfigError` when it cannot."""

LOCAL_WARNING = "This command will run on your computer with your permissions. Install only servers you trust."
REMOTE_WARNING = "MCP Desk will connect to this address{headers}. Install only servers you trust."
STORE_UNKNOWN = "in the secret store"
"""Where secrets go when no store is open (the install then fails before storing anything)."""


class InstallError(Exception):
    """The install failed after consent; everything it did was undone."""


class InstallRefused(InstallError):
    """The organisation's policy does not allow this install; nothing was asked or done."""


class InstallRules(Protocol):
    """What may be installed (the organisation's policy in force answers it)."""

    def install_refusal(self, config: ServerConfig, *, bundle: bool) -> str | None:
        """Why installing `config` is refused, in the user's words; None when it may be installed."""
        ...


@dataclass(frozen=True)
class InstallReply:
    """The answer to an `InstallConsent`: install or not, and for a local server whether in the sandbox."""

    install: bool
    sandboxed: bool = True
    """Only read when the consent offers a sandbox (`InstallConsent.sandbox`)."""


@dataclass(frozen=True, kw_only=True)
class InstallConsent(Question[InstallReply]):
    """May MCP Desk add this server? Shows exactly what will run or be contacted; no answer is no."""

    source: str
    """What is installed and from where, one line."""
    command: tuple[str, ...] = ()
    """The program and every argument, exactly as started (empty for remote servers)."""
    url: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    secrets: tuple[str, ...] = ()
    """Names of the secrets that will be stored (their values are never shown again)."""
    stored_where: str = STORE_UNKNOWN
    """Where those secrets go, for a sentence ("in a plaintext file, not encrypted"): `SecretBackend.where`."""
    stored_encrypted: bool = True
    """False when the store is a plaintext file: the consent says so as a caution."""
    notes: tuple[str, ...] = ()
    update_from: str | None = None
    """The version being replaced, when this is an update."""
    sandbox: SandboxOffer | None = None
    """The sandbox a local server is planned with; None where none applies (a remote, a container image)."""

    def yes(self, sandboxed: bool | None = None) -> InstallReply:
        """Install; in the sandbox as offered unless `sandboxed` says otherwise."""
        offered = self.sandbox is not None and self.sandbox.enabled
        return InstallReply(True, offered if sandboxed is None else sandboxed)

    @property
    def warning(self) -> str:
        if not self.url:
            return LOCAL_WARNING
        return REMOTE_WARNING.format(headers=" and send it the headers below" if self.headers else "")

    @property
    def secrets_line(self) -> str:
        """Which secrets are stored and where, one line ("" when there are none)."""
        return f"Stored {self.stored_where}: {', '.join(self.secrets)}" if self.secrets else ""

    def fallback(self) -> InstallReply:
        return InstallReply(False)


def store_words(store: SecretBackend | None) -> str:
    """Where secrets go, for a sentence, with the file when it is one: "in a plaintext file, not
    encrypted (/home/me/.local/share/mcp-desk/secrets.plaintext.cfg)"."""
    if store is None:
        return STORE_UNKNOWN
    return f"{store.where} ({store.path})" if store.path is not None else store.where


def consent_for(
    plan: InstallPlan,
    *,
    update_from: str | None = None,
    store: SecretBackend | None = None,
    support: SandboxSupport | None = None,
) -> InstallConsent:
    """The question for `plan`; `store` is where its secrets would go (None: no store is open), `support`
    how this computer confines servers (None: as it can right now)."""
    config = plan.config
    offer = offer_for(plan, support or system_support()) if applies(config) else None
    return InstallConsent(
        server=config.name,
        source=plan.source,
        command=tuple(command_line(config)) if config.is_stdio else (),
        url=None if config.is_stdio else config.url,
        env=tuple(config.env.items()),
        headers=tuple(config.headers.items()),
        secrets=tuple(sorted(plan.secrets)),
        stored_where=store_words(store),
        stored_encrypted=store.encrypted if store is not None else True,
        notes=plan.notes,
        update_from=update_from,
        sandbox=offer,
    )


async def install(
    plan: InstallPlan,
    *,
    asker: Asker,
    save: SaveEntry,
    secrets: SecretStore | None,
    rules: InstallRules,
    update_from: str | None = None,
    previous: ServerConfig | None = None,
    sandboxed: bool | None = None,
    sandbox_support: SandboxProbe = system_support,
) -> bool:
    """Ask, then commit; False when the user declined (nothing was done). Raises `InstallError`
    (`InstallRefused` when `rules` do not allow it). An update keeps the entry's sandbox; `sandboxed`
    is the caller's choice before asking (`--no-sandbox`), which the consent then shows."""
    refusal = rules.install_refusal(plan.config, bundle=plan.staged is not None)
    if refusal is not None:
        raise InstallRefused(refusal)
    if previous is not None:
        plan = replace(plan, config=keeping_the_sandbox(plan.config, previous))
    store = secrets.backend if secrets is not None else None
    support = await asyncio.to_thread(sandbox_support) if applies(plan.config) else None
    consent = consent_for(plan, update_from=update_from, store=store, support=support)
    if consent.sandbox is not None and sandboxed is not None:
        plan = _sandboxed_or_not(plan, consent.sandbox, sandboxed)
        consent = consent_for(plan, update_from=update_from, store=store, support=support)
    reply = await ask_user(asker, consent)
    if not reply.install:
        return False
    if consent.sandbox is not None:
        plan = _sandboxed_or_not(plan, consent.sandbox, reply.sandboxed)
    await commit(plan, save=save, secrets=secrets, previous=previous)
    return True


def _sandboxed_or_not(plan: InstallPlan, offer: SandboxOffer, sandboxed: bool) -> InstallPlan:
    """`plan` as the user chose; going without the sandbox where `offer.required` says no is refused."""
    if not sandboxed and offer.required is not None:
        raise InstallRefused(offer.required)
    return replace(plan, config=choosing(plan.config, sandboxed))


async def commit(
    plan: InstallPlan, *, save: SaveEntry, secrets: SecretStore | None, previous: ServerConfig | None = None
) -> None:
    """Store the secrets, unpack, write the entry; on any failure undo all of it and raise `InstallError`.

    Then record the install in the app's own record. Unpacking and deleting files run in a worker
    thread: a large bundle must not freeze the window.
    """
    config = plan.config
    restore: dict[str, str | None] = {}
    unpacked = False
    try:
        if plan.secrets and secrets is None:
            raise InstallError("no secret store is available to keep this server's secrets; nothing was installed")
        for name, value in plan.secrets.items():
            assert secrets is not None
            restore[name] = secrets.get(name)
            secrets.set(name, value)
        if plan.staged is not None:
            unpacking = asyncio.ensure_future(asyncio.to_thread(plan.staged.commit))
            unpacked = True  # from here on, a failure or a cancel removes whatever was written
            try:
                await asyncio.shield(unpacking)
            except asyncio.CancelledError:
                await asyncio.gather(unpacking, return_exceptions=True)  # the thread cannot be stopped: let it end
                raise
        save(config, plan.replaces)
    except (Exception, asyncio.CancelledError) as exc:
        if unpacked and plan.staged is not None:
            await asyncio.to_thread(plan.staged.discard)
        _restore_secrets(secrets, restore)
        if isinstance(exc, InstallError | asyncio.CancelledError):
            raise
        raise InstallError(f"{exc}; nothing was installed") from exc
    _record(config)
    if previous is not None:
        await asyncio.to_thread(_forget_old_files, previous, config)


def _record(config: ServerConfig) -> None:
    """The entry is saved and works; without its record only a policy's `registry` rule would not vouch for it."""
    try:
        InstallRecords().record(config)
    except OSError as exc:
        log.warning("the install of %s could not be recorded (%s): a registry rule will not allow it", config.name, exc)


def _restore_secrets(secrets: SecretStore | None, restore: dict[str, str | None]) -> None:
    if secrets is None:
        return
    for name, old in restore.items():
        try:
            if old is None:
                secrets.delete(name)
            else:
                secrets.set(name, old)
        except SecretStoreError as exc:  # the store broke midway: say so in the log, keep undoing
            log.warning("could not restore secret %s: %s", name, exc)


def _forget_old_files(previous: ServerConfig, current: ServerConfig) -> None:
    """An updated bundle leaves its old folder behind once the new entry is saved."""
    old, new = previous.origin.get("bundle"), current.origin.get("bundle")
    # Only ever inside the folder the new version went to, or the app's bundles folders (one from before
    # bundles had their own): an origin is text anyone can edit.
    if old and old != new and (new is None or not remove_bundle_files(previous, Path(new).parent)):
        remove_bundle_files(previous)
