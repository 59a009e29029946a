"""One MCP server connection, owned from start to end by a single long-lived task.

anyio cancel scopes must be exited by the task that entered them, so the owner task alone
enters and leaves the SDK's `Client` (one `Session` per attempt); other tasks only send requests
through it (`Calls`). The owner restarts a dead server with exponential backoff, waits for the
user to sign in where the server asks for it, and re-lists the catalog on change. Stopping cancels
the owner's own cancel scope, never its task, so the server's process is always wound down
(`owner_task`); once the app quits, a connection is retired and nothing starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from mcp import Client

from desktop_app.core.asks.question import FallbackAsker, QuestionGate
from desktop_app.core.asks.server_asks import ServerAsks
from desktop_app.core.asks.service import AskService
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.server_auth import ServerAuth, SignInServices
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.config_error import ConfigError
from desktop_app.core.connection.calls import Calls
from desktop_app.core.connection.confinement import Confinement
from desktop_app.core.connection.listings import Staleness
from desktop_app.core.connection.live_config import LiveConfig
from desktop_app.core.connection.owner_task import OwnerTask
from desktop_app.core.connection.process_end import ProcessEnd
from desktop_app.core.connection.requests import Requests
from desktop_app.core.connection.server_log import ServerLog
from desktop_app.core.connection.session import Session
from desktop_app.core.connection.subscriptions import Subscriptions
from desktop_app.core.events import CatalogChanged, Event, EventBus, LogEntry, ServerStateChanged
from desktop_app.core.expansion import SecretLookup, resolve_server
from desktop_app.core.log_routing import server_log_context
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.sandbox.probe import SandboxUnavailable
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_errors import describe_error, is_connection_loss
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.core.tasks.board import TaskBoard
from desktop_app.core.transport_watch import TransportWatch
from desktop_app.core.transports import open_transport
from desktop_app.core.watched_streams import TransportHooks

TargetFactory = Callable[[ServerConfig, TransportHooks], Any]
"""Builds what `mcp.Client` connects to: a transport, or an in-process server in tests."""


class ServerConnection(Requests, LiveConfig):
    """Keeps one server connected, observable and restartable."""

    def __init__(
        self,
        config: ServerConfig,
        bus: EventBus,
        *,
        secrets: SecretLookup | None = None,
        environ: Mapping[str, str] | None = None,
        policy: RestartPolicy | None = None,
        target_factory: TargetFactory = open_transport,
        log_level: str = "info",
        sign_in: SignInServices | None = None,
        asks: AskService | None = None,
        tasks: TaskBoard | None = None,
        managed: PolicyInForce | None = None,
    ) -> None:
        """`tasks` is the host's board; a connection made without a host (a sign-in) lists its tasks alone.
        `managed` is the organisation's policy (by default the one in force): it may require the sandbox."""
        self.config = config
        self._bus = bus
        self._secrets = secrets
        self._environ = environ
        self._policy = policy or RestartPolicy()
        self._target_factory = target_factory
        self._log_level = log_level
        self.status = ServerStatus(ServerState.STOPPED)
        self.catalog: ServerCatalog | None = None
        self._log = ServerLog(lambda: self.name, self._published)
        required = (policy_in_force() if managed is None else managed).sandbox_required()
        self.confinement = Confinement(self._log.note, required)
        """How it is confined at each start: its entry, the policy, the user's choice to run it unconfined."""
        self.denials = self.confinement.denials
        self._session: Session | None = None
        self._owner = OwnerTask(self._log.note)
        self._stop = asyncio.Event()
        self._retired = False
        self._watch = TransportWatch(self._log.note)
        self._settled = asyncio.Event()
        self._staleness = Staleness()
        self.auth = ServerAuth(
            lambda: self.name,
            sign_in or SignInServices(CredentialStore(lambda: None)),
            status=lambda: self.status,
            set_status=self._set_status,
            note=self._log.note,
            lost=lambda: self._watch.mark_dead("the server asks to sign in again"),
        )
        """The server's sign-in (remote servers that answer 401); idle for the others."""
        self._exit = ProcessEnd()
        self.asks = ServerAsks(
            config.name,
            asks or AskService(QuestionGate(FallbackAsker())),
            note=self._log.note,
            alive=lambda: not self._stop.is_set(),
            publish=bus.publish,
            own_roots=lambda: self.config.roots,
        )
        """Answers what the server asks (elicitation, sampling, roots); its questions go to the user."""
        self._calls = Calls(
            config=lambda: self.config,
            status=lambda: self.status,
            client=lambda: self.client,
            auth=self.auth,
            asks=self.asks,
            mark_dead=lambda reason: self._watch.mark_dead(reason),
            tasks=tasks if tasks is not None else TaskBoard(),
            note=self._log.note,
        )
        self._subscriptions = Subscriptions(
            lambda: self.name,
            client=lambda: self.client,
            request=self._calls.request,
            staleness=self._staleness,
            publish=bus.publish,
            note=self._log.note,
        )

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def running(self) -> bool:
        return self._owner.running

    @property
    def client(self) -> Client | None:
        """The SDK client while a session is ready for requests."""
        return None if self._session is None else self._session.client

    @property
    def stderr(self) -> deque[str]:
        """The server's last stderr lines (secrets masked)."""
        return self._log.stderr

    @property
    def log(self) -> deque[LogEntry]:
        """The server's log: its stderr, its log messages and the host's notes (secrets masked)."""
        return self._log.entries

    @property
    def log_level(self) -> str:
        return self.config.log_level or self._log_level

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting in the background; a disabled server just reports so (a retired one, nothing)."""
        if self.running or self._retired:
            return
        if self.config.disabled:
            self._set_status(ServerStatus(ServerState.DISABLED))
            return
        self._stop = asyncio.Event()
        # The SDK's own log records about this server land in its log (`log_routing`).
        self._owner.start(self._own(), f"mcp-server:{self.name}", server_log_context(self._log.note))

    def retire(self) -> None:
        """The app is quitting: nothing starts this server again (a restart only stops it)."""
        self._retired = True

    async def stop(self, timeout: float = 1.8) -> None:
        """Close the session and end the server process: gracefully when the owner only waits, else by
        cancelling what it awaits; an owner that overstays `timeout` is cancelled, within a bound."""
        if not self._owner.running:
            if self.status.state not in (ServerState.DISABLED, ServerState.FAILED):
                self._set_status(ServerStatus(ServerState.STOPPED))
            return
        idle = self._owner.idle
        self._stop.set()
        if not idle:
            self._owner.cancel()  # before anything else is awaited: the owner may wake meanwhile
        await self.auth.close()
        await self._owner.stop(idle, timeout)

    async def restart(self, config: ServerConfig | None = None) -> None:
        await self.stop()
        if config is not None:
            self.config = config
        self.start()

    async def wait_settled(self, timeout: float | None = None) -> ServerStatus:
        """Wait until the server is ready, failed, disabled or stopped (not mid-attempt)."""
        await asyncio.wait_for(self._settled.wait(), timeout)
        return self.status

    # -- the owner task --------------------------------------------------------------------

    async def _own(self) -> None:
        attempt = 0
        try:
            while not self._stop.is_set():
                self._set_status(ServerStatus(ServerState.STARTING, attempt=attempt))
                ready_since: list[float] = []
                try:
                    await self._attempt(ready_since)
                except SandboxUnavailable as exc:
                    self._fail(self.confinement.failed(exc))
                    return
                except ConfigError as exc:
                    self._fail(str(exc))
                    return
                except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
                    self._fail(describe_error(exc))  # retrying cannot find a missing command
                    return
                except Exception as exc:
                    if self._stop.is_set():
                        break
                    # The process's exit, else why the transport ended (it knows), else the error itself.
                    lost = self._watch.dead.is_set() and is_connection_loss(exc)
                    reason = self._exit.reason(exc) or (self._watch.dead_reason if lost else describe_error(exc))
                else:
                    if self._stop.is_set():
                        break
                    reason = self._exit.reason(None) or "the server closed the connection"
                if self.auth.needs_sign_in:  # a 401 or 403: wait for the user to sign in, not for backoff
                    if (gave_up := self.auth.gave_up()) is not None:
                        self._fail(gave_up)
                        return
                    if not await self.auth.wait_for_sign_in(self._stop):
                        break
                    attempt = 0
                    continue
                if ready_since and time.monotonic() - ready_since[0] >= self._policy.healthy_after:
                    attempt = 0
                attempt += 1
                self._log.note("warning", f"connection lost: {reason}")
                if attempt > self._policy.max_attempts:
                    tries = self._policy.max_attempts
                    self._fail(f"gave up after {tries} restart attempts: {reason}" if tries else reason)
                    return
                delay = self._policy.delay(attempt)
                self._set_status(
                    ServerStatus(
                        ServerState.RESTARTING,
                        reason=reason,
                        stderr_tail=self._log.stderr_tail(),
                        attempt=attempt,
                        next_try_at=time.time() + delay,
                    )
                )
                with self._owner.idling(), contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), delay)
            self._set_status(ServerStatus(ServerState.STOPPED))
        except asyncio.CancelledError:
            self._set_status(ServerStatus(ServerState.STOPPED))
            raise
        finally:
            self._session = None
            self._set_catalog(None)

    async def _attempt(self, ready_since: list[float]) -> None:
        """One connection attempt, from resolving the configuration to the session's end."""
        resolved = resolve_server(self.config, self._secrets or _NoSecrets(), self._environ)
        self._log.secret_values = resolved.secret_values
        self._exit.new_attempt()
        self._log.new_attempt()
        config = self.confinement.launch(resolved.config, self.asks.roots.uris())
        self._watch = watch = TransportWatch(self._log.note)
        auth = self.auth.session_auth(config)
        hooks = watch.hooks(on_stderr=self._log.on_stderr, on_exit=self._exit.on_exit, auth=auth)
        session = Session(
            config,
            self._target_factory(config, hooks),
            watch,
            auth=self.auth,
            log=self._log,
            log_level=lambda: self.log_level,
            asks=self.asks,
            staleness=self._staleness,
            subscriptions=self._subscriptions,
            publish=self._bus.publish,
            claims=self._calls.claims,
        )
        self._session = session

        def ready(client: Client) -> None:
            for level, text in self.confinement.started_notes(resolved.config):
                self._log.note(level, text)
            self._set_status(ServerStatus(ServerState.READY, protocol_version=client.protocol_version))
            ready_since.append(time.monotonic())

        try:
            await session.run(
                self._stop,
                catalog=lambda: self.catalog,
                set_catalog=self._set_catalog,
                ready=ready,
                idling=self._owner.idling,
            )
        finally:
            self._session = None

    # -- observation -----------------------------------------------------------------------

    def _published(self, event: Event) -> None:
        """A log line goes out, then a sandboxed server's line is read for what the sandbox refused."""
        self._bus.publish(event)
        self.confinement.seen(event, self.config)

    def _fail(self, reason: str) -> None:
        reason = self._log.redact(reason)
        self._log.note("error", reason)
        self._set_status(ServerStatus(ServerState.FAILED, reason=reason, stderr_tail=self._log.stderr_tail()))

    def _set_status(self, status: ServerStatus) -> None:
        self.status = status
        if status.state in (ServerState.STARTING, ServerState.RESTARTING, ServerState.SIGNING_IN):
            self._settled.clear()
        else:
            self._settled.set()
        self._bus.publish(ServerStateChanged(self.name, status))

    def _set_catalog(self, catalog: ServerCatalog | None) -> None:
        if catalog is None and self.catalog is None:
            return
        self.catalog = catalog
        self._bus.publish(CatalogChanged(self.name, catalog))


class _NoSecrets:
    def get(self, name: str) -> str | None:
        return None
