"""One MCP server connection, owned from start to end by a single long-lived task.

anyio cancel scopes must be exited by the task that entered them, so the owner task alone
enters and leaves the SDK's `Client`; other tasks only send requests through it. The owner
restarts a dead server with exponential backoff and re-lists the catalog on change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import warnings
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Final, Literal, TypeVar

from mcp import Client
from mcp.client import advertise
from mcp.client.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged
from mcp.client.subscriptions import ResourceUpdated as ListenResourceUpdated
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    METHOD_NOT_FOUND,
    REQUEST_TIMEOUT,
    CallToolResult,
    CompleteResult,
    DiscoverResult,
    GetPromptResult,
    Implementation,
    LoggingMessageNotificationParams,
    PromptListChangedNotification,
    PromptReference,
    ReadResourceResult,
    ResourceListChangedNotification,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    ServerCapabilities,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app import __version__
from desktop_app.core.apps.meta import EXTENSION_ID, client_extension_settings
from desktop_app.core.asks.question import FallbackAsker, QuestionGate
from desktop_app.core.asks.server_asks import ServerAsks
from desktop_app.core.asks.service import AskService
from desktop_app.core.auth.credentials import CredentialStore
from desktop_app.core.auth.server_auth import ServerAuth, SignInServices
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.config_file import ConfigError
from desktop_app.core.events import (
    CatalogChanged,
    EventBus,
    LogEntry,
    LogLine,
    LogSource,
    ResourceUpdated,
    ServerStateChanged,
)
from desktop_app.core.expansion import SecretLookup, redact, resolve_server
from desktop_app.core.log_routing import server_log_context
from desktop_app.core.process_exit import describe_exit
from desktop_app.core.restart_policy import RestartPolicy
from desktop_app.core.server_config import LOG_LEVELS, ServerConfig
from desktop_app.core.server_errors import (
    ConnectionLost,
    ServerRequestTimeout,
    ServerUnavailableError,
    describe_error,
    is_connection_loss,
)
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.core.transport_watch import TransportWatch
from desktop_app.core.transports import open_transport
from desktop_app.core.watched_streams import CLOSED_REASON, TransportHooks

log = logging.getLogger(__name__)

T = TypeVar("T")
TargetFactory = Callable[[ServerConfig, TransportHooks], Any]
"""Builds what `mcp.Client` connects to: a transport, or an in-process server in tests."""

STDERR_LINES: Final = 500
LOG_LINES: Final = 2000
MAX_PAGES: Final = 1000
CLIENT_INFO: Final = Implementation(name="mcp-desk", title="MCP Desk", version=__version__)
ListKind = Literal["resources", "prompts", "tools"]
"""A listing a server may announce as changed ("resources" covers the templates too)."""
_LIST_KINDS: Final[tuple[ListKind, ...]] = ("resources", "prompts", "tools")
_LISTEN_KINDS: Final[dict[type, tuple[ListKind, ...]]] = {
    ResourcesListChanged: ("resources",),
    PromptsListChanged: ("prompts",),
    ToolsListChanged: ("tools",),
}


class ServerConnection:
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
    ) -> None:
        self.config = config
        self._bus = bus
        self._secrets = secrets
        self._environ = environ
        self._policy = policy or RestartPolicy()
        self._target_factory = target_factory
        self._log_level = log_level
        self.status = ServerStatus(ServerState.STOPPED)
        self.catalog: ServerCatalog | None = None
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.log: deque[LogEntry] = deque(maxlen=LOG_LINES)
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._watch = TransportWatch(self._note)
        self._idle = False
        """True while the owner only waits (for work, a stop or a retry): stopping then needs no cancel."""
        self._relist = asyncio.Event()
        self._stale: set[ListKind] = set()
        """The listings the server said changed since the last listing (relisted, the others kept)."""
        self._resubscribe = asyncio.Event()
        self._settled = asyncio.Event()
        self._subscriptions: Counter[str] = Counter()
        self._secret_values: frozenset[str] = frozenset()
        self.auth = ServerAuth(
            lambda: self.name,
            sign_in or SignInServices(CredentialStore(lambda: None)),
            status=lambda: self.status,
            set_status=self._set_status,
            note=self._note,
            lost=lambda: self._watch.mark_dead("the server asks to sign in again"),
        )
        """The server's sign-in (remote servers that answer 401); idle for the others."""
        self._exit_code: int | None = None
        """How the last stdio process ended, once the transport has stopped it."""
        self._stderr_count = 0
        self._attempt_stderr_from = 0
        self.asks = ServerAsks(
            config.name,
            asks or AskService(QuestionGate(FallbackAsker())),
            note=self._note,
            alive=lambda: not self._stop.is_set(),
            publish=bus.publish,
            own_roots=lambda: self.config.roots,
        )
        """Answers what the server asks (elicitation, sampling, roots); its questions go to the user."""

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting in the background; a disabled server just reports so."""
        if self.running:
            return
        if self.config.disabled:
            self._set_status(ServerStatus(ServerState.DISABLED))
            return
        self._stop = asyncio.Event()
        # The SDK's own log records about this server land in its log (`log_routing`).
        self._task = asyncio.create_task(
            self._own(), name=f"mcp-server:{self.name}", context=server_log_context(self._note)
        )

    async def stop(self, timeout: float = 1.8) -> None:
        """Close the session and end the server process; cancel the owner if it overstays."""
        task = self._task
        if task is None or task.done():
            if self.status.state not in (ServerState.DISABLED, ServerState.FAILED):
                self._set_status(ServerStatus(ServerState.STOPPED))
            return
        self._stop.set()
        await self.auth.close()
        if not self._idle:
            # A handshake or a listing in progress is work thrown away: unwind it now, don't wait.
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def restart(self, config: ServerConfig | None = None) -> None:
        await self.stop()
        if config is not None:
            self.config = config
        self.start()

    async def apply_config(self, config: ServerConfig) -> None:
        """Take a changed configuration: new roots or log level apply live where the protocol allows,
        anything else restarts the server."""
        old, client = self.config, self._client
        live = (
            replace(
                old,
                roots=config.roots,
                log_level=config.log_level,
                trusted=config.trusted,
                auto_approve_read_only=config.auto_approve_read_only,
            )
            == config
        )
        if not live or client is None or (config.log_level != old.log_level and self._modern(client)):
            await self.restart(config)
            return
        self.config = config
        if config.roots != old.roots:
            await self.roots_changed()
        if config.log_level != old.log_level:
            await self._enable_legacy_logging(client)

    async def roots_changed(self) -> None:
        """The user changed this server's roots (or the defaults it uses): tell a connected server."""
        client = self._client
        if client is None:
            return
        try:
            await self.asks.roots_changed(client)
        except Exception as exc:
            self._note("warning", f"could not send roots/list_changed: {describe_error(exc)}")

    @property
    def log_level(self) -> str:
        return self.config.log_level or self._log_level

    async def wait_settled(self, timeout: float | None = None) -> ServerStatus:
        """Wait until the server is ready, failed, disabled or stopped (not mid-attempt)."""
        await asyncio.wait_for(self._settled.wait(), timeout)
        return self.status

    # -- requests (any task) ---------------------------------------------------------------

    async def read_resource(self, uri: str) -> ReadResourceResult:
        return await self._request(f"resources/read {uri}", lambda c: c.read_resource(uri))

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        progress: ProgressFnT | None = None,
        *,
        call_id: str | None = None,
    ) -> CallToolResult:
        """Call a tool; questions the server asks meanwhile are shown with the chat's call `call_id`."""

        def send(client: Client) -> Awaitable[CallToolResult]:
            # The timeout is kept by `asks.call_tool`: it pauses while the server waits on the user.
            return client.call_tool(tool, arguments, read_timeout_seconds=math.inf, progress_callback=progress)

        return await self.asks.call_tool(
            tool, call_id, self.config.timeout, lambda: self._request(f"tools/call {tool}", send)
        )

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> GetPromptResult:
        return await self._request(f"prompts/get {prompt}", lambda c: c.get_prompt(prompt, arguments))

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> CompleteResult:
        return await self._request(
            "completion/complete",
            lambda c: c.complete(ref, {"name": argument, "value": value}, context_arguments=context),
        )

    async def subscribe(self, uri: str) -> None:
        """Ask for `resources/updated` on `uri`; counted, so several viewers may share one."""
        self._subscriptions[uri] += 1
        if self._subscriptions[uri] == 1:
            await self._apply_subscription(uri, subscribe=True)

    async def unsubscribe(self, uri: str) -> None:
        if self._subscriptions[uri] <= 0:
            return
        self._subscriptions[uri] -= 1
        if self._subscriptions[uri] == 0:
            del self._subscriptions[uri]
            await self._apply_subscription(uri, subscribe=False)

    async def _request(self, what: str, send: Callable[[Client], Awaitable[T]]) -> T:
        client = self._client
        if client is None or self.status.state not in (ServerState.READY, ServerState.SIGNING_IN):
            raise self.auth.unavailable() or ServerUnavailableError(f"Server '{self.name}' is {self.status.summary}")
        generation = self.auth.generation
        try:
            return await send(client)
        except MCPError as exc:
            if (refused := self.auth.refusal(generation)) is not None:
                raise refused from exc
            if exc.code == REQUEST_TIMEOUT:
                raise ServerRequestTimeout(
                    f"Server '{self.name}' did not answer {what} within {self.config.timeout:g} s"
                ) from exc
            if exc.code != CONNECTION_CLOSED:
                raise
            self._watch.mark_dead(CLOSED_REASON)
            raise ServerUnavailableError(f"Server '{self.name}' closed the connection during {what}") from exc
        except Exception as exc:
            if (refused := self.auth.refusal(generation)) is not None:
                raise refused from exc
            if not is_connection_loss(exc):
                raise
            self._watch.mark_dead(describe_error(exc))
            raise ServerUnavailableError(
                f"Server '{self.name}' connection lost during {what}: {describe_error(exc)}"
            ) from exc

    # -- the owner task --------------------------------------------------------------------

    async def _own(self) -> None:
        attempt = 0
        try:
            while not self._stop.is_set():
                self._set_status(ServerStatus(ServerState.STARTING, attempt=attempt))
                ready_since: list[float] = []
                try:
                    await self._session(ready_since)
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
                    reason = self._exit_reason(exc) or (self._watch.dead_reason if lost else describe_error(exc))
                else:
                    if self._stop.is_set():
                        break
                    reason = self._exit_reason(None) or "the server closed the connection"
                if self.auth.needs_sign_in:  # a 401: wait for the user to sign in, not for backoff
                    if not await self.auth.wait_for_sign_in(self._stop):
                        break
                    attempt = 0
                    continue
                if ready_since and time.monotonic() - ready_since[0] >= self._policy.healthy_after:
                    attempt = 0
                attempt += 1
                self._note("warning", f"connection lost: {reason}")
                if attempt > self._policy.max_attempts:
                    tries = self._policy.max_attempts
                    self._fail(f"gave up after {tries} restart attempts: {reason}" if tries else reason)
                    return
                delay = self._policy.delay(attempt)
                self._set_status(
                    ServerStatus(
                        ServerState.RESTARTING,
                        reason=reason,
                        stderr_tail=self._stderr_tail(),
                        attempt=attempt,
                        next_try_at=time.time() + delay,
                    )
                )
                self._idle = True
                try:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._stop.wait(), delay)
                finally:
                    self._idle = False
            self._set_status(ServerStatus(ServerState.STOPPED))
        except asyncio.CancelledError:
            self._set_status(ServerStatus(ServerState.STOPPED))
            raise
        finally:
            self._client = None
            self._set_catalog(None)

    async def _session(self, ready_since: list[float]) -> None:
        resolved = resolve_server(self.config, self._secrets or _NoSecrets(), self._environ)
        self._secret_values = resolved.secret_values
        config = resolved.config
        self._exit_code = None
        self._attempt_stderr_from = self._stderr_count
        self._watch = watch = TransportWatch(self._note)
        hooks = watch.hooks(on_stderr=self._on_stderr, on_exit=self._on_exit, auth=self.auth.session_auth(config))
        client = Client(
            self._target_factory(config, hooks),
            mode=config.protocol,
            read_timeout_seconds=config.timeout,
            message_handler=self._on_message,
            logging_callback=self._on_log,
            log_level=self.log_level,  # type: ignore[arg-type]
            client_info=CLIENT_INFO,
            cache=None,  # every read and list must reflect the server now, not a TTL ago
            **self.asks.client_options(),
            extensions=[advertise(EXTENSION_ID, client_extension_settings())],  # MCP Apps: views render here
        )
        async with contextlib.AsyncExitStack() as stack:
            watch.handshaking = True
            try:
                # The SDK bounds each request, but not the whole `auto` probe-and-fallback dance.
                async with asyncio.timeout(config.timeout):
                    await stack.enter_async_context(client)
            except Exception as exc:
                raise watch.handshake_failure(exc, config.timeout) from exc
            finally:
                watch.handshaking = False
            self._note("info", f"connected, protocol {client.protocol_version}")
            await self._discover_pinned(client)
            await self._enable_legacy_logging(client)
            self._set_catalog(await self._list_catalog(client))
            self._client = client
            self._set_status(ServerStatus(ServerState.READY, protocol_version=client.protocol_version))
            ready_since.append(time.monotonic())
            listener: asyncio.Task[None] | None = None
            try:
                await self._resubscribe_all(client)
                if self._modern(client):
                    listener = self._start_listener(client)
                while True:
                    self._idle = True
                    try:
                        await _first_of(self._stop, watch.dead, self._relist, self._resubscribe)
                    finally:
                        self._idle = False
                    if self._stop.is_set():
                        return
                    if watch.dead.is_set():
                        raise ConnectionLost(watch.dead_reason)
                    if self._relist.is_set():
                        self._relist.clear()
                        stale, self._stale = self._stale, set()
                        self._set_catalog(await self._list_catalog(client, stale))
                    if self._resubscribe.is_set():
                        self._resubscribe.clear()
                        if listener is not None:
                            await _cancel(listener)
                            listener = self._start_listener(client)
            finally:
                self._client = None
                if listener is not None:
                    await _cancel(listener)

    async def _discover_pinned(self, client: Client) -> None:
        """A pinned 2026 version skips the probe, and the SDK then assumes a server with no capabilities
        (so nothing would be listed): ask the server what it offers with `server/discover`.

        The SDK gives each `server/discover` 10 s; a server still starting (a package being fetched,
        a busy machine) answers a later try, so tries repeat within the server's own timeout."""
        if self.config.protocol not in MODERN_PROTOCOL_VERSIONS or client.server_capabilities != ServerCapabilities():
            return
        deadline = time.monotonic() + self.config.timeout
        while True:
            try:
                raw = await client.session.send_discover(client.protocol_version)
                client.session.adopt(DiscoverResult.model_validate(raw))
                return
            except MCPError as exc:
                if exc.code != REQUEST_TIMEOUT:
                    self._note("warning", f"server/discover failed; listing nothing: {describe_error(exc)}")
                    return
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"no answer to server/discover within {self.config.timeout:g} s") from None
            except (ValueError, RuntimeError) as exc:
                self._note("warning", f"server/discover failed; listing nothing: {describe_error(exc)}")
                return

    async def _list_catalog(self, client: Client, stale: set[ListKind] | None = None) -> ServerCatalog:
        """List what the server offers; with `stale`, only those listings, the others kept from the
        last catalog (a server announcing new tools need not send its 10,000 resources again)."""
        caps = client.server_capabilities
        kept = self.catalog if stale is not None else None
        resources: tuple[Any, ...] = ()
        templates: tuple[Any, ...] = ()
        prompts: tuple[Any, ...] = ()
        tools: tuple[Any, ...] = ()
        if caps.resources is not None:
            if kept is not None and "resources" not in (stale or ()):
                resources, templates = kept.resources, kept.templates
            else:
                resources = await _all_pages(lambda c: client.list_resources(cursor=c), "resources")
                try:
                    templates = await _all_pages(
                        lambda c: client.list_resource_templates(cursor=c), "resource_templates"
                    )
                except MCPError as exc:
                    # Templates are optional: a server may list resources without implementing templates.
                    if exc.code != METHOD_NOT_FOUND:
                        raise
        if caps.prompts is not None:
            if kept is not None and "prompts" not in (stale or ()):
                prompts = kept.prompts
            else:
                prompts = await _all_pages(lambda c: client.list_prompts(cursor=c), "prompts")
        if caps.tools is not None:
            if kept is not None and "tools" not in (stale or ()):
                tools = kept.tools
            else:
                tools = await _all_pages(lambda c: client.list_tools(cursor=c), "tools")
        return ServerCatalog(
            server=self.name,
            server_info=client.server_info,
            protocol_version=client.protocol_version,
            instructions=client.instructions,
            resources=resources,
            templates=templates,
            prompts=prompts,
            tools=tools,
        )

    # -- subscriptions and change notifications -------------------------------------------

    @staticmethod
    def _modern(client: Client) -> bool:
        return client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def _apply_subscription(self, uri: str, *, subscribe: bool) -> None:
        client = self._client
        if client is None:
            return  # applied on (re)connect
        if self._modern(client):
            self._resubscribe.set()
            return
        caps = client.server_capabilities.resources
        if caps is None or not caps.subscribe:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            try:
                if subscribe:
                    await self._request(f"resources/subscribe {uri}", lambda c: c.subscribe_resource(uri))
                else:
                    await self._request(f"resources/unsubscribe {uri}", lambda c: c.unsubscribe_resource(uri))
            except (MCPError, ServerUnavailableError, ServerRequestTimeout) as exc:
                self._note("warning", f"could not change subscription to {uri}: {describe_error(exc)}")

    async def _resubscribe_all(self, client: Client) -> None:
        if not self._modern(client):
            for uri in list(self._subscriptions):
                await self._apply_subscription(uri, subscribe=True)

    def _start_listener(self, client: Client) -> asyncio.Task[None]:
        return asyncio.create_task(self._listen(client, sorted(self._subscriptions)), name=f"listen:{self.name}")

    async def _listen(self, client: Client, uris: list[str]) -> None:
        caps = client.server_capabilities
        wants_uris = uris if caps.resources is not None and caps.resources.subscribe else []
        try:
            async with client.listen(
                tools_list_changed=bool(caps.tools and caps.tools.list_changed),
                prompts_list_changed=bool(caps.prompts and caps.prompts.list_changed),
                resources_list_changed=bool(caps.resources and caps.resources.list_changed),
                resource_subscriptions=wants_uris,
            ) as subscription:
                async for event in subscription:
                    if isinstance(event, ListenResourceUpdated):
                        self._bus.publish(ResourceUpdated(self.name, event.uri))
                    else:
                        self._mark_stale(_LISTEN_KINDS.get(type(event), _LIST_KINDS))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._note("info", f"change notifications unavailable: {describe_error(exc)}")

    async def _enable_legacy_logging(self, client: Client) -> None:
        if self._modern(client) or client.server_capabilities.logging is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            try:
                await client.set_logging_level(self.log_level)  # type: ignore[arg-type]
            except MCPError as exc:
                self._note("info", f"server refused logging/setLevel: {exc.message}")

    async def _on_message(self, message: Any) -> None:
        self.asks.on_notification(message)
        # Exceptions (unparsable lines) arrive here too; the watched transport already logged them.
        if isinstance(message, ResourceUpdatedNotification):
            self._bus.publish(ResourceUpdated(self.name, message.params.uri))
        elif isinstance(message, ResourceListChangedNotification):
            self._mark_stale(("resources",))
        elif isinstance(message, ToolListChangedNotification):
            self._mark_stale(("tools",))
        elif isinstance(message, PromptListChangedNotification):
            self._mark_stale(("prompts",))

    def _mark_stale(self, kinds: Iterable[ListKind]) -> None:
        self._stale.update(kinds)
        self._relist.set()

    async def _on_log(self, params: LoggingMessageNotificationParams) -> None:
        if _severity(params.level) < _severity(self.log_level):
            return  # below this server's level: not every server honours logging/setLevel
        data = params.data if isinstance(params.data, str) else repr(params.data)
        prefix = f"[{params.logger}] " if params.logger else ""
        self._add_log("server", params.level, prefix + data)

    # -- observation -----------------------------------------------------------------------

    def _on_stderr(self, line: str) -> None:
        line = redact(line, self._secret_values)
        self.stderr.append(line)
        self._stderr_count += 1
        self._add_log("stderr", "info", line)

    def _on_exit(self, returncode: int) -> None:
        self._exit_code = returncode

    def _exit_reason(self, exc: Exception | None) -> str | None:
        """How the process ended, when that is why the connection did (not when a stop or a timeout ended it)."""
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        if self._exit_code is None or not (exc is None or isinstance(exc, ConnectionLost) or is_connection_loss(exc)):
            return None
        return describe_exit(self._exit_code)

    def note_app(self, level: str, text: str) -> None:
        """A line about one of this server's MCP App views (what it sent, what it was refused)."""
        self._add_log("app", level, text)

    def _note(self, level: str, text: str) -> None:
        self._add_log("host", level, text)

    def _add_log(self, source: LogSource, level: str, text: str) -> None:
        entry = LogEntry(time.time(), source, level, redact(text, self._secret_values))
        self.log.append(entry)
        self._bus.publish(LogLine(self.name, entry))

    def _stderr_tail(self, lines: int = 20) -> tuple[str, ...]:
        """The last stderr lines of the latest attempt (earlier attempts' lines would only repeat)."""
        lines = min(lines, self._stderr_count - self._attempt_stderr_from)
        return tuple(list(self.stderr)[-lines:]) if lines > 0 else ()

    def _fail(self, reason: str) -> None:
        reason = redact(reason, self._secret_values)
        self._note("error", reason)
        self._set_status(ServerStatus(ServerState.FAILED, reason=reason, stderr_tail=self._stderr_tail()))

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


async def _all_pages(fetch: Callable[[str | None], Awaitable[Any]], attr: str) -> tuple[Any, ...]:
    """Follow every `next_cursor`; stop on a repeated cursor so a buggy server cannot loop us."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        items.extend(getattr(page, attr))
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return tuple(items)


def _severity(level: str) -> int:
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else 0


async def _first_of(*events: asyncio.Event) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
