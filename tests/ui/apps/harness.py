"""Shared set-up for MCP App view tests: the app fixture server in-process, local web servers, probes."""

from __future__ import annotations

import asyncio
import html
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from PySide6.QtWidgets import QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.asks.question import Question, ScriptedAsker
from desktop_app.core.chat.app_gateway import AppGateway
from desktop_app.core.chat.approval import ApprovalPolicy
from desktop_app.core.events import LogLine
from desktop_app.core.extensions.apps_meta import ViewOrigin
from tests.hosting import eventually
from tests.llm_server import RecordingApprover
from tests.servers.app_server import PROBE_URI, build_app_server
from tests.window_kit import inprocess_bridge

PROBE_PREFIX = "app log: [probe] "


class WebServer:
    """A loopback HTTP server that records every path asked of it (and lets any origin read it).

    `/redirect?to=URL` redirects to URL; `/framing?to=URL` is a page with URL in an iframe.
    """

    def __init__(self) -> None:
        hits: list[str] = []
        self.hits = hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                path, _, query = self.path.partition("?")
                target = parse_qs(query).get("to", [""])[0]
                if path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", target)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body, kind = b"ok", "text/plain"
                if path == "/framing":  # a page that frames `to` in turn
                    body, kind = f'<!doctype html><iframe src="{html.escape(target)}"></iframe>'.encode(), "text/html"
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class Chat:
    """The conversation's side, recorded."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.contexts: list[str] = []
        self.results: list[tuple[str, str, bool]] = []
        """Each tool call a view made: the tool, what it returned as text, whether it failed."""

    def chat_id(self) -> str:
        return "chat-1"

    def taint(self) -> str | None:
        return None

    def send_app_message(self, origin: ViewOrigin, server: str, text: str) -> str | None:
        self.messages.append(text)
        return None

    def set_app_context(self, origin: ViewOrigin, server: str, text: str) -> None:
        self.contexts.append(text)

    def app_tool_result(self, chat: str, origin: ViewOrigin, server: str, tool: str, text: str, is_error: bool) -> None:
        self.results.append((tool, text, is_error))


@dataclass
class Env:
    """One app server behind a bridge, with the user scripted and every probe report collected."""

    bridge: CoreBridge
    declared: WebServer
    undeclared: WebServer
    approver: RecordingApprover = field(default_factory=RecordingApprover)
    chat: Chat = field(default_factory=Chat)
    opened: list[str] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[type, Any] = field(default_factory=dict)
    asker: ScriptedAsker = field(init=False)
    views: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.asker = ScriptedAsker(self._answer)
        self.bridge.host.questions.asker = self.asker
        self.bridge.host.bus.subscribe(LogLine, self._on_log)

    def _answer(self, question: Question[Any]) -> Any:
        """The scripted answer for the question's type (a list: one answer per question, in turn)."""
        answer = self.answers.get(type(question), question.fallback())
        if isinstance(answer, list):
            return answer.pop(0) if answer else question.fallback()
        return answer

    def _on_log(self, event: LogLine) -> None:
        text = event.entry.text
        if PROBE_PREFIX in text:
            self.reports.append(json.loads(text.split(PROBE_PREFIX, 1)[1]))

    def gateway(self, origin: ViewOrigin) -> AppGateway:
        def open_url(url: str) -> bool:
            self.opened.append(url)
            return True

        return AppGateway(
            self.bridge.host,
            "apps",
            origin,
            policy=ApprovalPolicy(self.approver),
            chat=self.chat,
            open_url=open_url,
        )

    def view(self, uri: str = PROBE_URI, call_id: str | None = "call-1", **options: Any) -> Any:
        """The view of `uri` (the probe by default) for a call of the probe tool, shown."""
        from desktop_app.ui.apps.app_view import AppView

        origin = ViewOrigin(uri, call_id)
        tool = next((t for t in self.bridge.host.catalog.servers["apps"].tools if t.name == "probe"), None)
        view = AppView(self.bridge, "apps", origin, self.gateway(origin), tool=tool, **options)
        view.resize(560, 420)
        view.show()
        self.views.append(view)
        return view

    def report(self, step: str) -> dict[str, Any] | None:
        return next((r for r in self.reports if r["step"] == step), None)

    async def wait_report(self, step: str, timeout: float = 30.0) -> dict[str, Any]:
        await eventually(lambda: self.report(step) is not None, timeout=timeout, what=f"the probe's {step!r}")
        found = self.report(step)
        assert found is not None
        return found

    def questions(self, kind: type) -> list[Question[Any]]:
        return [q for q in self.asker.asked if isinstance(q, kind)]

    async def close(self) -> None:
        # The servers' web profiles stay for the whole run, as in the app (they go at quit).
        for view in self.views:
            await view.dispose("the test is over")
            view.deleteLater()
        await settle()
        await self.bridge.host.stop_all()
        self.declared.close()
        self.undeclared.close()


async def settle() -> None:
    """Let deferred deletions and the engine's replies run."""
    for _ in range(5):
        await asyncio.sleep(0.02)


async def make_env() -> Env:
    declared, undeclared = WebServer(), WebServer()
    bridge = await inprocess_bridge({"apps": build_app_server(declared.origin)})
    return Env(bridge, declared, undeclared)


def widget_text(widget: QWidget) -> str:
    from PySide6.QtWidgets import QLabel

    return "\n".join(label.text() for label in widget.findChildren(QLabel) if label.isVisible())


Scenario = Callable[[Env], Any]
