"""`mcp-desk --self-test`: check that this installation (source or bundle) works end to end.

Each check is real: the embedded demo server is started over stdio, its long guide and its
PDF are read, a PDF page is rendered with Qt offscreen, the demo's MCP App is shown in a
sandboxed QtWebEngine view until it paints (and is checked to have no WebRTC and no network but
the relay), a model is asked a question in the OpenAI and the Anthropic dialects (a scripted provider on
127.0.0.1: LiteLLM's request, stream and tool-call path, offline), tokens are counted offline, and the
secret store is exercised. Prints one line per
check; exit status 0 only if all passed.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from desktop_app.core.content import ResourceContent, describe_for_model
from desktop_app.core.host import ServerHost
from desktop_app.core.paths import data_dir
from desktop_app.core.server_status import ServerState

Check = Callable[[], Awaitable[str]]


@dataclass
class Outcome:
    name: str
    ok: bool
    detail: str
    seconds: float


class SelfTest:
    """Runs the checks in order; later ones reuse what earlier ones fetched."""

    def __init__(self) -> None:
        self.host = ServerHost()
        self.guide: ResourceContent | None = None
        self.pdf: ResourceContent | None = None

    async def demo_server(self) -> str:
        from desktop_app.session import demo_server_config

        config = demo_server_config()
        self.host.start([config])
        status = await self.host.connection(config.name).wait_settled(60)
        if status.state is not ServerState.READY:
            raise RuntimeError(f"demo server is {status.summary}")
        return f"ready over stdio ({status.protocol_version}), started as {config.command} {' '.join(config.args)}"

    async def catalog(self) -> str:
        snapshot = self.host.catalog.servers["demo"]
        if not snapshot.resources or not snapshot.prompts or not snapshot.tools:
            raise RuntimeError("the demo catalog is incomplete")
        return (
            f"{len(snapshot.resources)} resources, {len(snapshot.templates)} templates, "
            f"{len(snapshot.prompts)} prompts, {len(snapshot.tools)} tools"
        )

    async def long_text(self) -> str:
        [self.guide] = await self.host.read_resource("demo://guide")
        if self.guide.text is None or len(self.guide.text) < 11_000:
            raise RuntimeError("the guide did not arrive whole")
        return f"demo://guide, {len(self.guide.text):,} characters"

    async def pdf_resource(self) -> str:
        [self.pdf] = await self.host.read_resource("demo://report.pdf")
        if not self.pdf.is_binary or not (self.pdf.data or b"").startswith(b"%PDF-"):
            raise RuntimeError(f"not a PDF: {describe_for_model(self.pdf)}")
        return describe_for_model(self.pdf)

    async def pdf_render(self) -> str:
        """Page 1 drawn the way the viewer draws it: in the PDF worker process, within the budget."""
        from PySide6.QtGui import QImage

        from desktop_app.core.mupdf_worker import PAGE_BUDGET_S, MupdfWorker, new_document_key

        assert self.pdf is not None and self.pdf.data is not None
        _app = qt_application()
        worker, key, data = MupdfWorker(), new_document_key(), self.pdf.data
        try:
            count = (await worker.request(key, data, {"op": "count"}, page=0, budget=PAGE_BUDGET_S))["pages"]
            render = {"op": "render", "scale": 96 / 72}
            band = await worker.request(key, data, render, page=0, budget=PAGE_BUDGET_S)
        finally:
            worker.close()
        samples = band["samples"]
        image = QImage(samples, band["width"], band["height"], band["stride"], QImage.Format.Format_RGB888).copy()
        if image.isNull():
            raise RuntimeError("Qt could not take the rendered page")
        return f"{count} pages; page 1 rendered {image.width()}x{image.height()} in the PDF worker"

    async def app_view(self) -> str:
        """The demo's notes board in a real view: QtWebEngine starts, the view handshakes and paints."""
        from desktop_app.bridge import CoreBridge
        from desktop_app.core.apps.session import SessionState
        from desktop_app.core.chat.app_gateway import AppGateway, wire
        from desktop_app.core.chat.approval import ApprovalPolicy, Decision, StaticApprover
        from desktop_app.core.extensions.apps_meta import ViewOrigin
        from desktop_app.demo_server.notes_app import BOARD_URI
        from desktop_app.ui.apps.app_view import AppView

        app = qt_application()
        started = time.perf_counter()
        bridge = CoreBridge(self.host)
        tool = next(t for t in self.host.catalog.servers["demo"].tools if t.name == "show_notes_board")
        result = await self.host.connection("demo").call_tool("show_notes_board", {})
        origin = ViewOrigin(BOARD_URI, "self-test")
        gateway = AppGateway(
            self.host,
            "demo",
            origin,
            policy=ApprovalPolicy(StaticApprover(Decision.DENY)),
            chat=_NoChat(),
            open_url=lambda _url: False,
        )
        view = AppView(bridge, "demo", origin, gateway, tool=tool)
        view.resize(640, 480)
        view.show()
        view.tool_input({})
        view.tool_result(wire(result))
        try:
            deadline = time.monotonic() + 60
            while not (view.session.state is SessionState.READY and view.has_painted()):
                if view.session.state is SessionState.CLOSED:
                    raise RuntimeError(view.session.closed_reason or "the view closed")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the view did not paint within 60 s ({view.session.state.value})")
                app.processEvents()  # this check runs on a plain asyncio loop: pump Qt by hand
                await asyncio.sleep(0.01)
            painted = time.perf_counter() - started
            webrtc = await _in_view_frame(app, view, "typeof RTCPeerConnection + ' ' + typeof webkitRTCPeerConnection")
            flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
            if webrtc != "undefined undefined" or not _network_contained(flags):
                raise RuntimeError(f"WebRTC is not off in the view ({webrtc}; engine flags: {' '.join(flags)})")
            name = view.session.app_name
            return f"{name} ({BOARD_URI}) initialized and painted in {painted:.1f} s; WebRTC off, network via the relay"
        finally:
            from desktop_app.ui.apps import profiles

            await view.dispose("self-test over")
            view.deleteLater()
            profiles.shut_down()

    async def model_call(self) -> str:
        """One streamed completion per dialect through the chat's own model path, each with a tool call,
        and one that fails: a bundle missing a part of LiteLLM either path needs fails here."""
        from desktop_app.core.model.llm import ProviderError, assemble, stream_completion
        from desktop_app.core.model.settings import ModelSettings
        from desktop_app.self_test.scripted_provider import FAILING, TEXT, TOOL, ScriptedProvider

        provider = ScriptedProvider()
        base = await provider.start()
        messages = [{"role": "user", "content": "What time is it?"}]
        tools = [{"type": "function", "function": {"name": TOOL, "parameters": {"type": "object", "properties": {}}}}]
        answered = []
        try:
            for model in ("openai/self-test", "anthropic/self-test"):
                settings = ModelSettings(model, api_base=base, max_retries=0, timeout=30)
                chunks = [chunk async for chunk in stream_completion(settings, messages, tools, "self-test")]
                message = assemble(chunks, messages).choices[0].message
                calls = [call.function.name for call in message.tool_calls or []]
                if message.content != TEXT or calls != [TOOL]:
                    raise RuntimeError(f"{model} answered {message.content!r} calling {calls}")
                answered.append(model.partition("/")[0])
                failing = ModelSettings(model, api_base=base + FAILING, max_retries=0, timeout=30)
                try:
                    _ = [chunk async for chunk in stream_completion(failing, messages, tools, "self-test")]
                except ProviderError as exc:
                    if "HTTP 500" not in str(exc):
                        raise RuntimeError(f"{model}'s failure read as {exc}") from exc
                else:
                    raise RuntimeError(f"{model}'s failure was not reported")
        finally:
            await provider.close()
        sent = [body for _path, body in provider.requests]
        if len(sent) != 4 or not all(body.get("tools") and body.get("stream") for body in sent):
            raise RuntimeError("the provider did not get the tools in a streamed request")
        return f"{' and '.join(answered)} dialects streamed text and a tool call, and reported a failure"

    async def tokens(self) -> str:
        from desktop_app.core.chat.tokens import count_tokens

        assert self.guide is not None and self.guide.text is not None
        started = time.perf_counter()
        count = await asyncio.to_thread(count_tokens, "gpt-4o", self.guide.text)
        claude = await asyncio.to_thread(count_tokens, "anthropic/claude-sonnet-4-5", self.guide.text)
        # A bare Claude name is counted with Anthropic's own tokenizer, read from litellm's files.
        anthropic = await asyncio.to_thread(count_tokens, "claude-sonnet-4-5", self.guide.text)
        if min(count, claude, anthropic) <= 0:
            raise RuntimeError("no tokens counted")
        elapsed = (time.perf_counter() - started) * 1000
        return (
            f"guide = {count:,} tokens (gpt-4o), {claude:,} (anthropic/claude), {anthropic:,} (Anthropic's tokenizer),"
            f" {elapsed:.0f} ms offline"
        )

    async def secrets(self) -> str:
        from desktop_app.core.secret_store import open_secret_store

        store = open_secret_store(data_dir())
        name, value = "MCP_DESK_SELF_TEST", f"probe-{os.getpid()}"
        store.set(name, value)
        try:
            if store.get(name) != value:
                raise RuntimeError("the stored value did not read back")
        finally:
            store.delete(name)
        return store.backend.label

    def checks(self) -> list[tuple[str, Check]]:
        return [
            ("demo server", self.demo_server),
            ("catalog", self.catalog),
            ("long text resource", self.long_text),
            ("PDF resource", self.pdf_resource),
            ("PDF page render", self.pdf_render),
            ("MCP App view", self.app_view),
            ("model call", self.model_call),
            ("token counting", self.tokens),
            ("secret store", self.secrets),
        ]

    async def run(self) -> list[Outcome]:
        outcomes: list[Outcome] = []
        try:
            for name, check in self.checks():
                started = time.perf_counter()
                try:
                    detail, ok = await check(), True
                except Exception as exc:
                    detail, ok = f"{type(exc).__name__}: {exc}", False
                outcomes.append(Outcome(name, ok, detail, time.perf_counter() - started))
        finally:
            await self.host.stop_all()
        return outcomes


async def _in_view_frame(app: Any, view: Any, script: str) -> Any:
    """What `script` gives in the view's own (sandboxed) frame, as the view's scripts would see it."""
    from PySide6.QtWebEngineCore import QWebEngineScript
    from PySide6.QtWebEngineWidgets import QWebEngineView

    web = view.findChild(QWebEngineView)
    frames = web.page().mainFrame().children() if web is not None else []
    if len(frames) != 1:
        raise RuntimeError(f"the view's page has {len(frames)} frames, not its one view")
    results: list[Any] = []
    frames[0].runJavaScript(script, QWebEngineScript.ScriptWorldId.MainWorld, results.append)
    deadline = time.monotonic() + 30
    while not results:
        if time.monotonic() > deadline:
            raise RuntimeError("the view's frame did not answer within 30 s")
        app.processEvents()
        await asyncio.sleep(0.01)
    return results[0]


def _network_contained(flags: list[str]) -> bool:
    """Whether the engine was started with WebRTC held to proxies and the relay as its proxy for everything."""
    from desktop_app.ui.apps.web_engine import WEBRTC_POLICY

    relay = any(flag.startswith("--proxy-server=socks5://127.0.0.1:") for flag in flags)
    return WEBRTC_POLICY in flags and relay and "--proxy-bypass-list=<-loopback>" in flags


class _NoChat:
    """The self-test has no conversation: a view's messages and context are refused."""

    def chat_id(self) -> str:
        return "self-test"

    def taint(self) -> str | None:
        return None

    def send_app_message(self, origin: object, server: str, text: str) -> str | None:
        return "there is no conversation in the self-test"

    def set_app_context(self, origin: object, server: str, text: str) -> None:
        return None

    def app_tool_result(self, chat: str, origin: object, server: str, tool: str, text: str, is_error: bool) -> None:
        return None


def qt_application() -> Any:
    """The widgets application the checks share (made once, ready for QtWebEngine)."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.apps.web_engine import prepare_application

    existing = QApplication.instance()
    if existing is not None:
        return existing
    prepare_application()
    return QApplication([sys.argv[0]])


def main(argv: list[str]) -> int:
    """`mcp-desk --self-test` (it takes no arguments)."""
    if argv:
        print(f"mcp-desk --self-test: unexpected arguments: {' '.join(argv)}", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    outcomes = asyncio.run(SelfTest().run())
    for outcome in outcomes:
        mark = "PASS" if outcome.ok else "FAIL"
        print(f"{mark}  {outcome.name:<20} {outcome.detail}  [{outcome.seconds:.2f} s]")
    failed = sum(not o.ok for o in outcomes)
    print(f"{len(outcomes) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
