"""MCP Apps in the whole window: a model's call shows its view in the tool card, gated, movable."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.apps.session import SessionState
from desktop_app.core.chat.approval import Requester
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.apps.app_view import AppView
from desktop_app.ui.apps.controller import AppSlot, AppWindow
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.message_bubble import MessageBubble
from desktop_app.ui.conversation.tool_card import ToolCard
from desktop_app.ui.shell.main_window import MainWindow
from resources_ui.viewers.viewer_pane import ViewerKind
from tests.hosting import eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text
from tests.servers.app_server import NOTE_URI, PROBE_URI
from tests.ui.apps.probe_reports import APP_SERVER, reported
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS
Scenario = Callable[[MainWindow, ScriptedLLM], Awaitable[None]]


until = functools.partial(eventually, timeout=30.0)


def run_app(qapp: QApplication, tmp_path: Path, llm: ScriptedLLM, scenario: Scenario) -> None:
    settings = AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible")
    servers = {"apps": {"command": sys.executable, "args": [str(APP_SERVER)]}}
    run_window_scenario(
        qapp, tmp_path, lambda window: scenario(window, llm), servers=servers, settings=settings, ready=1
    )


def test_a_models_call_shows_its_app_in_the_tool_card_and_the_app_acts_through_the_gate(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    steps = ["call:bump", f"read:{NOTE_URI}", "context:the user picked note 2", "message-when-idle:Tell me about it"]

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        proposed = {"steps": [*steps, "link:https://example.com/proposed"]}
        llm.queue(calls(ToolCall("apps__probe", proposed, id="call_probe")), text("Here is the probe."))
        llm.queue(text("About note 2."))
        window.composer.editor.setPlainText("Show me the probe")
        window.composer.send()
        # The model's own call to `probe` is approved as usual …
        # The first model call loads litellm (seconds; more on a busy machine).
        await until(lambda: window.findChildren(ApprovalPanel), timeout=120, what="the model's approval")
        [model_panel] = window.findChildren(ApprovalPanel)
        assert model_panel.request.requester is Requester.MODEL
        tool_card = next(c for c in window.conversation.findChildren(ToolCard) if c.call_id == "call_probe")
        assert model_panel.parent() is tool_card  # one card per call: the approval lives inside it
        model_panel.editor.setPlainText(json.dumps({"steps": steps}))  # the user drops the link step
        model_panel.allow_once.click()
        # … the view, inside the call's tool card, then asks to run `bump`: the same approval says the app asks.
        await until(
            lambda: any(p.open and p is not model_panel for p in window.findChildren(ApprovalPanel)),
            what="the app's approval",
        )
        app_panel = next(p for p in window.findChildren(ApprovalPanel) if p.open and p is not model_panel)
        assert app_panel.request.requester is Requester.APP and app_panel.request.tool == "bump"
        assert f"The app <b>{PROBE_URI}</b> wants to run" in app_panel.title.text()
        assert app_panel.parent() is not tool_card and app_panel.isVisible()  # under the card, standing alone
        [slot] = tool_card.findChildren(AppSlot)
        view = slot.view
        assert view.parent() is slot and view.placement == "inline"
        app_panel.allow_once.click()
        await until(lambda: reported(window, "done"), what="the probe's steps")
        assert reported(window, "call:bump")["ok"] is True  # type: ignore[index]
        assert reported(window, f"read:{NOTE_URI}")["ok"] is True  # type: ignore[index]
        assert reported(window, "result")["detail"] == {"steps": 4}  # type: ignore[index]
        # The view ran what the user allowed, not what the model proposed.
        assert reported(window, "link:https://example.com/proposed") is None
        await until(lambda: len(llm.bodies()) == 3 and not window.chat.busy, what="the app's message answered")
        app_bubbles = [b for b in window.conversation.findChildren(MessageBubble) if b.role == "app"]
        assert any("gave the model context" in b.header.text() for b in app_bubbles)
        assert any(b.text == "Tell me about it" and "From the app" in b.header.text() for b in app_bubbles)
        user = llm.bodies()[2]["messages"][-1]["content"]
        assert user.startswith("Tell me about it\n\n[Context from the app ui://fixture/probe.html of apps")
        assert user.endswith("the user picked note 2")
        # The app server is not trusted: what its app said to the model taints the chat.
        assert any(r.startswith(f"text from the app {PROBE_URI} of apps") for r in window.chat.conversation.taint)

        # Moved to the viewer and back, popped out and back: the same live view all along.
        view.viewer_button.click()
        viewer = window.resources.viewer
        assert viewer.app_widget is view and viewer.current_kind is ViewerKind.APP
        assert slot.away.isVisibleTo(slot)
        view.back_button.click()
        assert view.parent() is slot and viewer.app_widget is None
        view.pop_button.click()
        [popped] = [w for w in qapp.topLevelWidgets() if isinstance(w, AppWindow) and w.isVisible()]
        assert popped.view is view and view.placement == "window"
        popped.close()
        await until(lambda: view.parent() is slot, what="the view back in its card")
        assert view.session.state is SessionState.READY

        # A new chat: the view is told it is going (it may save its state), then released.
        view.viewer_button.click()
        window.chat_actions.new_chat()
        assert viewer.app_widget is None and window.apps.views == []
        await until(lambda: view.session.state is SessionState.CLOSED, what="the view torn down")
        assert reported(window, "teardown") is not None  # the view was told before it went

    run_app(qapp, tmp_path, llm, scenario)


def test_a_ui_resource_selected_in_the_browser_runs_in_the_viewer(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        browser = window.resources.browser
        await until(lambda: browser.index_of("apps", PROBE_URI).isValid(), what="the app in the browser")
        entry = browser.proxy.entry(browser.index_of("apps", PROBE_URI))
        assert entry is not None
        browser.open_entry(entry)  # what a click on the row does
        viewer = window.resources.viewer
        await until(lambda: viewer.current_kind is ViewerKind.APP, what="the app in the viewer")
        view = viewer.app_widget
        assert isinstance(view, AppView)
        await until(lambda: view.session.state is SessionState.READY, what="the view initialized")
        assert reported(window, "initialized")["detail"]["tool"] is None  # type: ignore[index]

    run_app(qapp, tmp_path, llm, scenario)


def test_starting_the_window_does_not_load_qtwebengine() -> None:
    code = (
        "import sys; import desktop_app.app, desktop_app.ui.shell.main_window;"
        "loaded = [m for m in sys.modules if 'WebEngine' in m];"
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
