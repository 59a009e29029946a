"""The host's side of one view's connection: the MCP Apps lifecycle, guarded against a bad view.

A view is untrusted code. Everything it sends arrives here as text and is parsed, validated,
rate-limited and answered; what it asks for is served by `view_requests`, through `AppServices`
(which gates tool calls and asks the user). What the host tells the view waits until the view has
initialized, as the specification requires. A view that floods, keeps sending garbage or never starts is closed with
a reason the window shows; the conversation and the app carry on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Final

from desktop_app import __version__
from desktop_app.core.apps import protocol
from desktop_app.core.apps.protocol import Notification, ProtocolError, Request, Response
from desktop_app.core.apps.view_requests import VIEW_REQUESTS, AppRefusal, AppServices
from desktop_app.core.extensions.apps_meta import PROTOCOL_VERSION
from desktop_app.core.server_errors import describe_error

log = logging.getLogger(__name__)

BURST: Final = 200
"""Messages a view may send at once before the rate applies."""
RATE: Final = 100.0
"""Sustained messages per second a view may send; above that it is stopped as a flood."""
MAX_IN_FLIGHT: Final = 16
MAX_MALFORMED: Final = 20
START_TIMEOUT: Final = 15.0
TEARDOWN_TIMEOUT: Final = 1.0
HOST_INFO: Final = {"name": "mcp-desk", "title": "MCP Desk", "version": __version__}


class SessionState(Enum):
    WAITING = "waiting for ui/initialize"
    INITIALIZING = "waiting for ui/notifications/initialized"
    READY = "ready"
    CLOSED = "closed"


class AppSession:
    """One view's JSON-RPC session; `receive` takes its messages, `send` carries the host's."""

    def __init__(
        self,
        services: AppServices,
        send: Callable[[str], None],
        host_context: Callable[[], dict[str, Any]],
        *,
        sandbox: Mapping[str, Any] | None = None,
        start_timeout: float = START_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._services = services
        self._send = send
        self._host_context = host_context
        self._sandbox = dict(sandbox or {})
        self._start_timeout = start_timeout
        self._clock = clock
        self.state = SessionState.WAITING
        self.closed_reason: str | None = None
        self.app_name: str | None = None
        self._outbox: list[tuple[str, dict[str, Any]]] = []
        self._tokens = float(BURST)
        self._refilled = clock()
        self._malformed = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)
        self._pending: dict[protocol.RequestId, asyncio.Future[Response]] = {}
        self._start_timer: asyncio.TimerHandle | None = None
        self._input_sent = False
        self.on_size: Callable[[int | None, int | None], None] = lambda _w, _h: None
        self.on_ready: Callable[[], None] = lambda: None
        self.on_closed: Callable[[str], None] = lambda _reason: None
        self.on_teardown_requested: Callable[[], None] = lambda: None

    # -- lifecycle ---------------------------------------------------------------------------

    def loaded(self) -> None:
        """The document is loaded: it now has `start_timeout` seconds to send `ui/initialize`."""
        if self._start_timer is None and self.state is SessionState.WAITING:
            loop = asyncio.get_running_loop()
            self._start_timer = loop.call_later(self._start_timeout, self._start_expired)

    def _cancel_start_timer(self) -> None:
        # Dropped, not just cancelled: a handle keeps its event loop alive as long as the view lives.
        if self._start_timer is not None:
            self._start_timer.cancel()
            self._start_timer = None

    def _start_expired(self) -> None:
        self._start_timer = None
        if self.state in (SessionState.WAITING, SessionState.INITIALIZING):
            self.close(
                f"The app did not start: it never completed the MCP Apps handshake within {self._start_timeout:g} s."
            )

    def close(self, reason: str) -> None:
        """Stop talking to the view (for good); pending requests are cancelled."""
        if self.state is SessionState.CLOSED:
            return
        self.state = SessionState.CLOSED
        self.closed_reason = reason
        self._cancel_start_timer()
        for task in list(self._tasks):
            task.cancel()
        for future in self._pending.values():
            future.cancel()
        self._services.log("warning" if reason else "info", f"app view closed: {reason or 'by the host'}")
        self.on_closed(reason)

    async def teardown(self, reason: str = "closed by the user") -> None:
        """Tell the view it is going away and wait (briefly) for it to save its state."""
        if self.state is SessionState.READY:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, AppRefusal):
                await self._request("ui/resource-teardown", {}, timeout=TEARDOWN_TIMEOUT)
        if self.state is not SessionState.CLOSED:
            self.state = SessionState.CLOSED
            self.closed_reason = ""
            self._cancel_start_timer()
            for task in list(self._tasks):
                task.cancel()
            self._services.log("info", f"app view torn down: {reason}")

    # -- host → view ---------------------------------------------------------------------------

    def tool_input_partial(self, arguments: dict[str, Any]) -> None:
        """Arguments as the model streams them; dropped once the complete input was sent."""
        if self._input_sent:
            return
        self._outbox = [m for m in self._outbox if m[0] != "ui/notifications/tool-input-partial"]
        self._notify("ui/notifications/tool-input-partial", {"arguments": arguments})

    @property
    def input_sent(self) -> bool:
        """The complete tool input went (or is queued) to the view."""
        return self._input_sent

    def tool_input(self, arguments: dict[str, Any]) -> None:
        self._outbox = [m for m in self._outbox if m[0] != "ui/notifications/tool-input-partial"]
        self._input_sent = True
        self._notify("ui/notifications/tool-input", {"arguments": arguments})

    def tool_result(self, result: dict[str, Any]) -> None:
        self._notify("ui/notifications/tool-result", result)

    def tool_cancelled(self, reason: str) -> None:
        self._notify("ui/notifications/tool-cancelled", {"reason": reason})

    def host_context_changed(self, changes: dict[str, Any]) -> None:
        """Only once the view is ready: before that it reads the whole context at initialize."""
        if self.state is SessionState.READY and changes:
            self._notify("ui/notifications/host-context-changed", changes)

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        if self.state is SessionState.CLOSED:
            return
        if self.state is not SessionState.READY:
            self._outbox.append((method, params))
            return
        self._services.log("debug", f"host → app {method}")
        self._send(protocol.notification(method, params))

    async def _request(self, method: str, params: dict[str, Any], *, timeout: float) -> Response:
        request_id = f"host-{next(self._ids)}"
        future: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            self._services.log("debug", f"host → app {method}")
            self._send(protocol.request(request_id, method, params))
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._pending.pop(request_id, None)

    # -- view → host -----------------------------------------------------------------------------

    def receive(self, text: str) -> None:
        """One message from the view, as JSON text (the web page only forwards it)."""
        if self.state is SessionState.CLOSED:
            return
        if not self._take_token():
            self.close(f"The app sent more than {BURST} messages in a burst (over {RATE:g} a second) and was stopped.")
            return
        try:
            message = protocol.parse(text)
        except ProtocolError as exc:
            self._malformed_message(exc)
            return
        if isinstance(message, Request):
            self._on_request(message)
        elif isinstance(message, Notification):
            self._on_notification(message)
        else:
            self._on_response(message)

    def oversize(self, length: int) -> None:
        """The page refused to forward a message this long: it counts as malformed."""
        self._malformed_message(ProtocolError(protocol.INVALID_REQUEST, f"message of {length:,} characters"))

    def _take_token(self) -> bool:
        now = self._clock()
        self._tokens = min(float(BURST), self._tokens + (now - self._refilled) * RATE)
        self._refilled = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def _malformed_message(self, exc: ProtocolError) -> None:
        self._malformed += 1
        self._services.log("warning", f"app sent a malformed message: {exc.message}")
        if exc.id is not None or exc.code == protocol.PARSE_ERROR:
            self._send(protocol.error(exc.id, exc.code, exc.message))
        if self._malformed >= MAX_MALFORMED:
            self.close(f"The app kept sending malformed messages ({self._malformed}) and was stopped.")

    def _on_notification(self, message: Notification) -> None:
        method, params = message.method, message.params
        try:
            if method == "ui/notifications/initialized":
                self._services.log("info", "app → host ui/notifications/initialized")
                self._initialized()
            elif method == "ui/notifications/size-changed":
                width, height = protocol.size_params(params)
                self._services.log("debug", f"app → host size-changed {width}×{height}")
                self.on_size(width, height)
            elif method == "notifications/message":
                level, text = protocol.log_params(params)
                self._services.log(level, f"app log: {text}")
            elif method == "ui/notifications/request-teardown":
                self._services.log("info", "app → host ui/notifications/request-teardown")
                self.on_teardown_requested()
            else:
                self._services.log("debug", f"app → host {method} (ignored)")
        except ProtocolError as exc:
            self._malformed_message(exc)

    def _initialized(self) -> None:
        if self.state is not SessionState.INITIALIZING:
            self._services.log("warning", "app sent ui/notifications/initialized before ui/initialize")
            return
        self.state = SessionState.READY
        self._cancel_start_timer()
        outbox, self._outbox = self._outbox, []
        for method, params in outbox:
            self._notify(method, params)
        self.on_ready()

    def _on_response(self, message: Response) -> None:
        future = self._pending.get(message.id)
        if future is None or future.done():
            self._services.log("warning", f"app answered a request the host never sent ({message.id!r})")
            return
        future.set_result(message)

    def _on_request(self, message: Request) -> None:
        if message.method == "ui/initialize":
            try:
                self._answer(message, self._initialize(message))
            except ProtocolError as exc:
                self._malformed_message(ProtocolError(exc.code, f"ui/initialize: {exc.message}", message.id))
            return
        if message.method == "ping":
            self._answer(message, {})
            return
        if self.state is SessionState.WAITING:
            self._refuse(message, protocol.INVALID_REQUEST, "send ui/initialize first")
            return
        if len(self._tasks) >= MAX_IN_FLIGHT:
            self._refuse(message, protocol.REFUSED, f"at most {MAX_IN_FLIGHT} requests may be in flight")
            return
        task = asyncio.ensure_future(self._handle(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _initialize(self, message: Request) -> dict[str, Any]:
        params = protocol.initialize_params(message.params)
        self.app_name = params.app_name
        self.state = SessionState.INITIALIZING if self.state is not SessionState.READY else self.state
        self._services.log(
            "info", f"app → host ui/initialize: {params.app_name} {params.app_version} ({params.protocol_version})"
        )
        capabilities: dict[str, Any] = {
            "openLinks": {},
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            "message": {"text": {}},
            "updateModelContext": {"text": {}, "structuredContent": {}},
            "sandbox": self._sandbox,
        }
        return {
            # Only one version exists; a view asking for another gets ours and decides itself.
            "protocolVersion": PROTOCOL_VERSION,
            "hostInfo": HOST_INFO,
            "hostCapabilities": capabilities,
            "hostContext": self._host_context(),
        }

    def _answer(self, message: Request, value: dict[str, Any] | None) -> None:
        if value is not None:
            self._send(protocol.result(message.id, value))

    def _refuse(self, message: Request, code: int, text: str) -> None:
        self._services.log("warning", f"refused app {message.method}: {text}")
        self._send(protocol.error(message.id, code, text))

    async def _handle(self, message: Request) -> None:
        method = message.method
        if (serve := VIEW_REQUESTS.get(method)) is None:
            self._refuse(message, protocol.METHOD_NOT_FOUND, f"{method} is not supported by this host")
            return
        try:
            value = await serve(self._services, message.params)
        except ProtocolError as exc:
            self._malformed_message(ProtocolError(exc.code, f"{method}: {exc.message}", message.id))
            return
        except AppRefusal as exc:
            self._refuse(message, protocol.REFUSED, str(exc))
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("app request %s failed", method, exc_info=True)
            self._refuse(message, protocol.INTERNAL_ERROR, describe_error(exc))
            return
        if self.state is not SessionState.CLOSED:
            self._answer(message, value)
