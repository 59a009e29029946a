"""The host side of a view's session: the handshake, delegation, and containment of a bad view."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from desktop_app.core.apps import protocol
from desktop_app.core.apps.session import BURST, MAX_IN_FLIGHT, MAX_MALFORMED, AppSession, SessionState
from desktop_app.core.apps.view_requests import AppRefusal
from tests.hosting import eventually

pytestmark = pytest.mark.anyio

INIT = {"appInfo": {"name": "probe", "version": "1.0"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}


class Services:
    """Records what the session delegates; `block` holds tool calls until released."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.logs: list[tuple[str, str]] = []
        self.block: asyncio.Event | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(("tools/call", (name, arguments)))
        if self.block is not None:
            await self.block.wait()
        if name == "refused":
            raise AppRefusal("The user declined to run 'refused'")
        if name == "broken":
            raise RuntimeError("kaput")
        return {"content": [{"type": "text", "text": f"ran {name}"}]}

    async def read_resource(self, uri: str) -> dict[str, Any]:
        self.calls.append(("resources/read", uri))
        return {"contents": [{"uri": uri, "text": "t"}]}

    async def open_link(self, url: str) -> None:
        self.calls.append(("ui/open-link", url))

    async def send_message(self, text: str) -> None:
        self.calls.append(("ui/message", text))

    async def update_model_context(self, text: str) -> None:
        self.calls.append(("ui/update-model-context", text))

    def log(self, level: str, text: str) -> None:
        self.logs.append((level, text))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class View:
    """The view's end of the wire: what the host sent it, and helpers to send."""

    def __init__(self, **options: Any) -> None:
        self.services = Services()
        self.sent: list[dict[str, Any]] = []
        self.closed: list[str] = []
        self.sizes: list[tuple[int | None, int | None]] = []
        self.session = AppSession(
            self.services, lambda text: self.sent.append(json.loads(text)), lambda: {"theme": "dark"}, **options
        )
        self.session.on_closed = self.closed.append
        self.session.on_size = lambda w, h: self.sizes.append((w, h))

    def request(self, id: int, method: str, params: dict[str, Any] | None = None) -> None:
        self.session.receive(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}))

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.session.receive(json.dumps({"jsonrpc": "2.0", "method": method, "params": params or {}}))

    def answer(self, id: int) -> dict[str, Any]:
        return next(m for m in self.sent if m.get("id") == id)

    def methods(self) -> list[str]:
        return [m["method"] for m in self.sent if "method" in m]

    def handshake(self) -> None:
        self.request(1, "ui/initialize", INIT)
        self.notify("ui/notifications/initialized")


async def test_handshake_and_nothing_reaches_the_view_before_it_is_initialized() -> None:
    view = View(sandbox={"csp": {"connectDomains": ["https://api.example"]}})
    view.session.tool_input_partial({"city": "Pa"})
    view.session.tool_input_partial({"city": "Paris"})
    view.session.host_context_changed({"theme": "light"})  # before ready: part of the initialize answer instead
    assert view.sent == []
    view.request(1, "ui/initialize", INIT)
    result = view.answer(1)["result"]
    assert result["protocolVersion"] == "2026-01-26"
    assert result["hostInfo"]["name"] == "mcp-desk"
    assert result["hostContext"] == {"theme": "dark"}
    capabilities = result["hostCapabilities"]
    assert {"openLinks", "serverTools", "serverResources", "logging", "message", "updateModelContext"} <= set(
        capabilities
    )
    assert capabilities["sandbox"]["csp"] == {"connectDomains": ["https://api.example"]}
    assert view.session.state is SessionState.INITIALIZING
    view.session.tool_input({"city": "Paris, France"})
    view.session.tool_result({"content": [{"type": "text", "text": "sunny"}]})
    assert view.methods() == []
    view.notify("ui/notifications/initialized")
    assert view.session.state is SessionState.READY
    # Queued in order; partial input superseded by the complete input is dropped.
    assert view.methods() == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    view.session.tool_input_partial({"late": True})
    view.session.host_context_changed({"theme": "light"})
    assert view.methods()[-1] == "ui/notifications/host-context-changed"


async def test_partial_input_flows_once_ready() -> None:
    view = View()
    view.handshake()
    view.session.tool_input_partial({"a": 1})
    view.session.tool_input_partial({"a": 12})
    view.session.tool_input({"a": 123})
    view.session.tool_cancelled("the user stopped the answer")
    assert view.methods() == [
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-input",
        "ui/notifications/tool-cancelled",
    ]
    assert view.sent[-1]["params"] == {"reason": "the user stopped the answer"}


async def test_requests_before_initialize_are_refused_but_ping_answers() -> None:
    view = View()
    view.request(5, "tools/call", {"name": "x"})
    assert view.answer(5)["error"]["code"] == protocol.INVALID_REQUEST
    view.request(6, "ping")
    assert view.answer(6) == {"jsonrpc": "2.0", "id": 6, "result": {}}
    assert view.services.calls == []


async def test_requests_are_delegated_and_refusals_reported() -> None:
    view = View()
    view.handshake()
    view.request(2, "tools/call", {"name": "echo", "arguments": {"a": 1}})
    view.request(3, "resources/read", {"uri": "x://note"})
    view.request(4, "ui/open-link", {"url": "https://example.com"})
    view.request(5, "ui/message", {"role": "user", "content": [{"type": "text", "text": "hi"}]})
    view.request(6, "ui/update-model-context", {"structuredContent": {"k": 1}})
    view.request(7, "tools/call", {"name": "refused"})
    view.request(8, "tools/call", {"name": "broken"})
    view.request(9, "sampling/createMessage", {})
    view.request(10, "ui/open-link", {"url": "javascript:alert(1)"})
    view.request(11, "ui/request-display-mode", {"mode": "fullscreen"})
    await eventually(lambda: all(any(m.get("id") == i for m in view.sent) for i in range(2, 12)))
    assert view.answer(2)["result"]["content"][0]["text"] == "ran echo"
    assert view.answer(3)["result"]["contents"][0]["uri"] == "x://note"
    assert view.answer(4)["result"] == {} and view.answer(5)["result"] == {} and view.answer(6)["result"] == {}
    assert view.answer(7)["error"] == {"code": protocol.REFUSED, "message": "The user declined to run 'refused'"}
    assert view.answer(8)["error"]["code"] == protocol.INTERNAL_ERROR
    assert view.answer(9)["error"]["code"] == protocol.METHOD_NOT_FOUND
    assert view.answer(10)["error"]["code"] == protocol.INVALID_PARAMS
    assert view.answer(11)["result"] == {"mode": "inline"}
    assert ("ui/update-model-context", '{"k": 1}') in view.services.calls
    assert ("ui/open-link", "https://example.com") in view.services.calls
    assert not any(call[0] == "ui/open-link" and "javascript" in str(call[1]) for call in view.services.calls)
    assert any("tools/call echo" in text for _, text in view.services.logs)


async def test_notifications_size_and_log() -> None:
    view = View()
    view.handshake()
    view.notify("ui/notifications/size-changed", {"width": 320, "height": 180})
    view.notify("notifications/message", {"level": "warning", "logger": "v", "data": "careful"})
    view.notify("ui/notifications/size-changed", {"height": -5})
    assert view.sizes == [(320, 180)]
    assert ("warning", "app log: [v] careful") in view.services.logs


async def test_a_flood_closes_the_view_with_a_reason() -> None:
    clock = Clock()
    view = View(clock=clock)
    view.handshake()
    for _ in range(BURST - 2):  # the handshake took two
        view.notify("ui/notifications/size-changed", {"height": 10})
    assert view.session.state is SessionState.READY
    clock.now += 0.5  # a sustained rate of 100 a second is fine
    for _ in range(40):
        view.notify("ui/notifications/size-changed", {"height": 10})
    assert view.session.state is SessionState.READY
    for _ in range(100):
        view.notify("ui/notifications/size-changed", {"height": 10})
    assert view.session.state is SessionState.CLOSED
    assert "messages in a burst" in view.closed[0]
    before = len(view.sent)
    view.request(99, "ping")
    view.session.tool_result({"content": []})
    assert len(view.sent) == before


async def test_malformed_messages_are_answered_then_the_view_is_closed() -> None:
    view = View()
    view.handshake()
    view.session.receive('"not json-rpc"')
    view.session.receive("{broken")
    view.session.receive('{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 3}}')
    await eventually(lambda: len(view.sent) == 3)
    assert [m["error"]["code"] for m in view.sent[1:]] == [protocol.PARSE_ERROR, protocol.INVALID_PARAMS]
    for _ in range(MAX_MALFORMED):
        view.session.receive("{broken")
    assert view.session.state is SessionState.CLOSED
    assert "malformed" in view.closed[0]


async def test_oversized_message_counts_as_malformed() -> None:
    view = View()
    view.handshake()
    view.session.oversize(5_000_000)
    assert any("5,000,000" in text for _, text in view.services.logs)


async def test_a_view_that_never_initializes_is_closed() -> None:
    started = View(start_timeout=0.05)
    started.handshake()
    started.session.loaded()  # its start timer is armed first, so it fires first
    view = View(start_timeout=0.05)
    view.session.loaded()
    await eventually(lambda: view.session.state is SessionState.CLOSED, timeout=60)
    assert "never completed the MCP Apps handshake" in view.closed[0]
    assert started.session.state is SessionState.READY, "its timer has fired too, and left it alone"


async def test_in_flight_requests_are_capped() -> None:
    view = View()
    view.handshake()
    view.services.block = asyncio.Event()
    for i in range(MAX_IN_FLIGHT + 1):
        view.request(100 + i, "tools/call", {"name": "slow"})
    await eventually(lambda: len(view.services.calls) == MAX_IN_FLIGHT)
    assert view.answer(100 + MAX_IN_FLIGHT)["error"]["code"] == protocol.REFUSED
    view.services.block.set()
    await eventually(lambda: all(any(m.get("id") == 100 + i for m in view.sent) for i in range(MAX_IN_FLIGHT)))


async def test_teardown_waits_for_the_view_then_closes() -> None:
    view = View()
    view.handshake()

    async def answer_when_asked() -> None:
        await eventually(lambda: "ui/resource-teardown" in view.methods())
        request = next(m for m in view.sent if m.get("method") == "ui/resource-teardown")
        view.session.receive(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}))

    responder = asyncio.ensure_future(answer_when_asked())
    await view.session.teardown("the chat was closed")
    await responder
    assert view.session.state is SessionState.CLOSED
    assert ("info", "app view torn down: the chat was closed") in view.services.logs
    silent = View()
    silent.handshake()
    await asyncio.wait_for(silent.session.teardown("quitting"), 3)  # a view that never answers cannot hold it up
    assert silent.session.state is SessionState.CLOSED
