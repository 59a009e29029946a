"""The server host: every configured server connected at once, one owner task each.

The host keeps the aggregated catalog current from its connections' events and routes
requests to the server that owns a URI. It never blocks: starting returns at once and each
connection reports its progress on the event bus.

The organisation's policy (`core/policy`) is asked here, once for every start of every server: each
transport opens through `_open`, which refuses a server the policy does not allow before any process
is spawned or address contacted. The connection then fails with the policy's words and does not retry.
The organisation's identity provider, when its policy sets one, is the one sign-in uses
(`sign_in.identity_provider`, its `${secret:NAME}` client secret read from the current store).

The host's catalog is what the model, its app views and `mcp-desk run` may use: each server's
listing less the tools the user switched off (`disabledTools`), and less the skill entries that list
another server's resources (`core/skills/addresses.py`; each is logged in its server's log). This is
the one place they are left out (the catalog itself keeps from the model a tool whose input schema
no provider could take, `tool_schemas`; the server's log says which and why); a connection's own
`catalog` stays the server's full listing, for the Servers panel. Every address is a pair (server,
URI): a URI alone is read from the one server that claims it, and one that several servers claim is
refused naming them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from desktop_app.core.asks.question import FallbackAsker, QuestionGate
from desktop_app.core.asks.service import AskService
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.idp import IdentityProviderSettings
from desktop_app.core.auth.server_auth import SignInServices
from desktop_app.core.catalog import Catalog, ServerCatalog
from desktop_app.core.config_error import ConfigError
from desktop_app.core.connection import ServerConnection, TargetFactory
from desktop_app.core.connection.requests import ServerRequests
from desktop_app.core.content import ResourceContent, from_mcp
from desktop_app.core.events import CatalogChanged, EventBus, ServerRemoved
from desktop_app.core.expansion import SecretLookup
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import ServerUnavailableError
from desktop_app.core.server_status import ServerState
from desktop_app.core.skills.addresses import AddressError, route, without_refused_skills
from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.transports import open_transport
from desktop_app.core.trust import UNTRUSTED, ServerTrust
from desktop_app.core.watched_streams import TransportHooks

log = logging.getLogger(__name__)


class _CurrentSecrets:
    """Reads through to whatever store the host has when a server connects."""

    def __init__(self, host: ServerHost) -> None:
        self._host = host

    def get(self, name: str) -> str | None:
        store = self._host.secrets
        return None if store is None else store.get(name)


class UnknownResourceError(AddressError):
    """No connected server offers this URI."""


class ServerBlocked(ConfigError):
    """The organisation's policy does not let this server run; like a configuration error, it is not retried."""


class ServerHost:
    """Owns all server connections and the catalog built from them."""

    def __init__(
        self,
        bus: EventBus | None = None,
        *,
        secrets: SecretLookup | None = None,
        environ: Mapping[str, str] | None = None,
        policy: RestartPolicy | None = None,
        target_factory: TargetFactory | None = None,
        managed: PolicyInForce | None = None,
    ) -> None:
        self.bus = bus or EventBus()
        self.managed = policy_in_force() if managed is None else managed
        """The organisation's policy in force (by default the file's): which servers run, what is switched off."""
        self.blocked: dict[str, Refusal] = {}
        """Servers the policy refused at their latest start, and which rule refused them."""
        self._secrets = secrets
        self._environ = environ
        self._policy = policy
        self._target_factory = target_factory or open_transport
        """How each server's transport opens: as configured unless told otherwise (tests run servers in-process)."""
        self._connections: dict[str, ServerConnection] = {}
        self._applying = asyncio.Lock()
        self._quitting = False
        self._offers: dict[str, ServerCatalog] = {}
        """Each ready server's listing as offered (less its switched-off tools), before skills are checked."""
        self._refused_skills: dict[tuple[str, str], str] = {}
        self._quarantined: dict[tuple[str, str], str] = {}
        self.catalog = Catalog()
        self.questions = QuestionGate(FallbackAsker())
        """Where servers' questions to the user go, one open per server; the window sets `questions.asker`."""
        self.sign_in = SignInServices(CredentialStore(lambda: self.secrets))
        """Sign-in to remote servers: tokens in the current secret store; the window sets `sign_in.opener`."""
        self._use_policy_identity_provider()
        self.asks = AskService(self.questions)
        """What servers may ask of the user and of the app: the model for sampling, the roots, the chat."""
        self.tasks = TaskBoard()
        """Every server's tasks: the Tasks view, the tool cards and `mcp-desk run` read and cancel them here;
        the composition root opens its store (`tasks.open`)."""
        self.bus.subscribe(CatalogChanged, self._on_catalog)

    @property
    def secrets(self) -> SecretLookup | None:
        """The store `${secret:NAME}` is read from at connect time; replaceable (e.g. once unlocked)."""
        return self._secrets

    @secrets.setter
    def secrets(self, store: SecretLookup | None) -> None:
        self._secrets = store
        self._use_policy_identity_provider()  # its client secret may be in this store

    def _use_policy_identity_provider(self) -> None:
        """The organisation's identity provider, when its policy sets one (Settings cannot change it)."""
        idp = self.managed.identity_provider
        if idp is None:
            return
        try:
            settings = IdentityProviderSettings.from_mapping(idp, source="policy")
            self.sign_in.identity_provider = settings.resolved(_CurrentSecrets(self))
        except ValueError as exc:
            self.sign_in.identity_provider = None
            log.warning("the organisation's identity provider cannot be used yet: %s", exc)

    @property
    def connections(self) -> Mapping[str, ServerConnection]:
        return self._connections

    def connection(self, name: str) -> ServerConnection:
        try:
            return self._connections[name]
        except KeyError:
            raise ServerUnavailableError(f"No server named '{name}' is configured") from None

    def requests(self, server: str) -> ServerRequests:
        """What a turn sends `server`: its connection's reads, calls, prompts and completions."""
        return self.connection(server)

    def start(self, configs: Iterable[ServerConfig]) -> None:
        """Start connecting every server concurrently; returns immediately."""
        for config in configs:
            self._add(config).start()

    async def apply(self, configs: Iterable[ServerConfig]) -> None:
        """Bring the running set in line with a new configuration, touching only what changed."""
        wanted = {config.name: config for config in configs}
        async with self._applying:  # one change at a time: the last configuration wins
            for name in [n for n in self._connections if n not in wanted]:
                await self.remove(name)
            for name, config in wanted.items():
                current = self._connections.get(name)
                if current is None:
                    self._add(config).start()
                elif _same_but_users_choices(current.config, config):
                    self._take_choices(current, config)  # trust or switched-off tools (or nothing): no reconnect
                else:
                    self._take_choices(current, config)
                    await current.apply_config(config)

    async def set_default_roots(self, roots: Iterable[str]) -> None:
        """New app-wide default roots: servers that use them are told their roots changed."""
        roots = tuple(roots)
        if roots == self.asks.default_roots:
            return
        self.asks.default_roots = roots
        for connection in list(self._connections.values()):
            if connection.config.roots is None:
                await connection.roots_changed()

    async def set_enabled(self, name: str, enabled: bool) -> None:
        connection = self.connection(name)
        await connection.restart(replace(connection.config, disabled=not enabled))

    def set_disabled_tools(self, name: str, tools: Iterable[str]) -> None:
        """Switch exactly `tools` of server `name` off, at once: the next request to the model leaves them out."""
        connection = self.connection(name)
        self._take_choices(connection, replace(connection.config, disabled_tools=tuple(dict.fromkeys(tools))))

    async def restart(self, name: str) -> None:
        await self.connection(name).restart()

    async def remove(self, name: str) -> None:
        """Stop the server and forget it; `ServerRemoved` is the last word views hear about it."""
        connection = self._connections.pop(name, None)
        if connection is not None:
            await connection.stop()
            if name not in self._connections:  # not meanwhile re-added under the same name
                self.bus.publish(ServerRemoved(name))

    async def wait_settled(self, timeout: float | None = None) -> None:
        """Wait until no server is mid-connect (each is ready, failed, disabled or stopped)."""
        await asyncio.wait_for(asyncio.gather(*(c.wait_settled() for c in self._connections.values())), timeout)

    async def stop_all(self, timeout: float = 1.8) -> None:
        """Stop every server in parallel; each stop is bounded (`ServerConnection.stop`)."""
        await asyncio.gather(*(c.stop(timeout) for c in list(self._connections.values())))

    async def quit(self, timeout: float = 1.8) -> None:
        """Stop every server for good: none starts again, not one a change being applied adds or restarts
        meanwhile, so no server outlives the app (its task would be cancelled with the event loop)."""
        self._quitting = True
        for connection in self._connections.values():
            connection.retire()
        await self.stop_all(timeout)

    def trust(self, server: str) -> ServerTrust:
        """The user's trust in `server` as configured now (untrusted when it is unknown)."""
        connection = self._connections.get(server)
        if connection is None:
            return UNTRUSTED
        config = connection.config
        return ServerTrust(config.trusted, config.trusted and config.auto_approve_read_only)

    def ready_count(self) -> int:
        return sum(c.status.state is ServerState.READY for c in self._connections.values())

    async def read_resource(self, uri: str, server: str | None = None) -> list[ResourceContent]:
        """Read a resource from the named server, or the one server that offers `uri`, classified for display.

        Raises `AddressError`: no server offers it, or several do and none was named.
        """
        owner = route(self.catalog, uri) if server is None else server
        if owner is None:
            raise UnknownResourceError(f"Resource '{uri}' is not offered by any connected server")
        result = await self.connection(owner).read_resource(uri)
        return [from_mcp(item) for item in result.contents]

    def _add(self, config: ServerConfig) -> ServerConnection:
        if config.name in self._connections:
            raise ValueError(f"server '{config.name}' is already configured")
        connection = ServerConnection(
            config,
            self.bus,
            secrets=_CurrentSecrets(self),
            environ=self._environ,
            policy=self._policy,
            target_factory=self._open,
            sign_in=self.sign_in,
            asks=self.asks,
            tasks=self.tasks,
            managed=self.managed,
        )
        if self._quitting:
            connection.retire()
        sampling_off = self.managed.feature_refusal("sampling")
        connection.asks.sampling.refused = None if sampling_off is None else str(sampling_off)
        self._connections[config.name] = connection
        return connection

    def _open(self, config: ServerConfig, hooks: TransportHooks) -> Any:
        """Every attempt of every server opens its transport here: unless the policy allows the server
        (as resolved, so as it would run), nothing is spawned or contacted and it fails with the rule."""
        refusal = self.managed.server_refusal(config)
        if refusal is not None:
            self.blocked[config.name] = refusal
            raise ServerBlocked(str(refusal))
        self.blocked.pop(config.name, None)
        return self._target_factory(config, hooks)

    def _take_choices(self, connection: ServerConnection, config: ServerConfig) -> None:
        """Take the user's trust and switched-off tools from `config`; views hear of a changed offer."""
        old = connection.config
        connection.config = replace(
            old,
            trusted=config.trusted,
            auto_approve_read_only=config.auto_approve_read_only,
            disabled_tools=config.disabled_tools,
        )
        if old.disabled_tools != config.disabled_tools and connection.catalog is not None:
            self.bus.publish(CatalogChanged(connection.name, connection.catalog))  # filtered in `_on_catalog`

    def _on_catalog(self, event: CatalogChanged) -> None:
        if event.catalog is None:
            self._offers.pop(event.server, None)
        else:
            self._offers[event.server] = self._offered(event.catalog)
        # Every server's skills are checked again: a skill listing the resources of a server that connects
        # later is refused then, and offered again once that server is gone.
        self.catalog, refused = without_refused_skills(Catalog(dict(self._offers)))
        for (server, uri), why in refused.items():
            if self._refused_skills.get((server, uri)) != why and server in self._connections:
                line = f"skill {uri} refused: {why}"
                log.warning("server %s: %s", server, line)
                self._connections[server].asks.context.note("warning", line)
        self._refused_skills = refused
        # A tool whose input schema no provider could take is left out of the model's tools by the catalog;
        # its server's log says so once (the Servers panel and `mcp-desk run` say so too).
        quarantined = dict(self.catalog.quarantined())
        for (server, tool), why in quarantined.items():
            if self._quarantined.get((server, tool)) != why and server in self._connections:
                line = f"tool {tool} is not offered to the model: {why}"
                log.warning("server %s: %s", server, line)
                self._connections[server].asks.context.note("warning", line)
        self._quarantined = quarantined

    def _offered(self, snapshot: ServerCatalog) -> ServerCatalog:
        """A server's listing as the model may use it: without the tools the user switched off."""
        connection = self._connections.get(snapshot.server)
        off = frozenset(connection.config.disabled_tools) if connection is not None else frozenset()
        if not any(tool.name in off for tool in snapshot.tools):
            return snapshot
        return replace(snapshot, tools=tuple(tool for tool in snapshot.tools if tool.name not in off))


def _same_but_users_choices(old: ServerConfig, new: ServerConfig) -> bool:
    """Whether two configurations differ at most in the user's trust and switched-off tools (no reconnect)."""
    return (
        replace(
            old,
            trusted=new.trusted,
            auto_approve_read_only=new.auto_approve_read_only,
            disabled_tools=new.disabled_tools,
        )
        == new
    )
