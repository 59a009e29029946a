"""Servers asking back in the real window: cards under their tool call during a turn, on the server's
row outside one, sampling usage on the meter, and questions withdrawn when their server stops."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.asks.card_asker import NO_ANSWER
from desktop_app.ui.asks.form_card import FormCard
from desktop_app.ui.asks.sampling_cards import SamplingCard
from desktop_app.ui.asks.url_card import UrlCard
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.tool_card import CallState
from desktop_app.ui.shell.main_window import MainWindow
from tests.core.asks.hosting import ASKING_SCRIPT
from tests.hosting import eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, ToolCall, calls, text, tool_messages
from tests.servers.everything import everything_available, everything_stdio_params
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS
Scenario = Callable[[MainWindow, ScriptedLLM], Awaitable[None]]
needs_everything = pytest.mark.skipif(not everything_available(), reason="server-everything is not installed")


until = functools.partial(eventually, timeout=60.0)


def run_app(
    qapp: QApplication,
    tmp_path: Path,
    llm: ScriptedLLM,
    scenario: Scenario,
    servers: dict[str, Any] | None = None,
    roots: tuple[str, ...] = (),
) -> None:
    """The real window with `servers` (default: the asking server) and a scripted model."""
    asking = {"command": sys.executable, "args": [str(ASKING_SCRIPT)], "protocol": "legacy"}
    servers = servers or {"asking": asking}
    settings = AppSettings(ModelSettings("openai/scripted", api_base=llm.url), provider="compatible", roots=roots)
    run_window_scenario(
        qapp, tmp_path, lambda window: scenario(window, llm), servers=servers, settings=settings, ready=len(servers)
    )


async def allow_the_call(window: MainWindow) -> None:
    await until(lambda: [c for c in window.asker.pending if isinstance(c, ApprovalPanel)], what="approval")
    next(c for c in window.asker.pending if isinstance(c, ApprovalPanel)).allow_once.click()


async def server_question(window: MainWindow, what: str) -> AskCard[Any]:
    """The card of the first question a server asks (the model's approvals are not those)."""

    def asked() -> list[AskCard[Any]]:
        return [c for c in window.asker.pending if not isinstance(c, ApprovalPanel)]

    await until(asked, what=what)
    return asked()[0]


@pytest.mark.stdio
def test_a_form_during_a_turn_sits_under_its_tool_call(qapp: QApplication, tmp_path: Path, llm: ScriptedLLM) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(calls(ToolCall("asking__ask_form", {}, id="call_form")), text("Thanks, Ada."))
        window.composer.editor.setPlainText("Register me")
        window.composer.send()
        await allow_the_call(window)
        card = await server_question(window, "the form card")
        assert isinstance(card, FormCard)
        tool = window.conversation.card("call_form")
        assert tool is not None and tool.state is CallState.ASKING
        layout = window.conversation._layout
        assert layout.indexOf(card) == layout.indexOf(tool) + 1  # right under its tool call
        card.editors["name"].widget.setText("Ada")  # type: ignore[attr-defined]
        card.editors["email"].widget.setText("ada@example.com")  # type: ignore[attr-defined]
        card.submit.click()
        await until(lambda: not window.chat.busy, what="the end of the turn")
        assert tool.state is CallState.DONE
        [result] = tool_messages(llm.bodies()[1])
        assert json.loads(result["content"])["content"]["name"] == "Ada"

    run_app(qapp, tmp_path, llm, scenario)


def test_outside_a_turn_on_the_servers_panel_and_withdrawn_when_the_server_stops(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(UrlCard, "open_url", lambda url: True)

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        connection = window.bridge.host.connection("asking")
        link = asyncio.ensure_future(connection.call_tool("ask_link", {}))
        card = await server_question(window, "the link card")
        assert isinstance(card, UrlCard)
        panel = window.servers_panel
        await until(lambda: card.isVisibleTo(panel), what="the card on the servers panel")
        row = panel._list.currentItem()
        assert panel.selected() == "asking" and row.text().endswith("asks you something") and row.font().bold()
        card.open_page.click()
        result: Any = await link
        assert json.loads(result.content[0].text) == {"action": "accept"}
        assert not row.text().endswith("asks you something")

        form = asyncio.ensure_future(connection.call_tool("ask_form", {}))
        card = await server_question(window, "the form card")
        window.bridge.restart_server("asking")
        await until(lambda: card.withdrawn is not None, what="the withdrawal")
        # The session's end cancels the question, or the window withdraws it first: either way it says so.
        assert card.outcome.text() in (NO_ANSWER, "The server stopped, so its question was withdrawn.")
        with pytest.raises(Exception, match="asking"):
            await form
        await until(lambda: window.bridge.host.ready_count() == 1, what="the restarted server")

    run_app(qapp, tmp_path, llm, scenario)


def test_sampling_consent_and_usage_on_the_meter(qapp: QApplication, tmp_path: Path, llm: ScriptedLLM) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(
            calls(ToolCall("asking__sample", {"prompt": "A colour?"}, id="call_sample")),
            text("Teal."),
            text("The server got its colour."),
        )
        window.composer.editor.setPlainText("Let the server ask the model")
        window.composer.send()
        await allow_the_call(window)
        card = await server_question(window, "the consent card")
        assert isinstance(card, SamplingCard)
        card.allow_chat.click()  # for this chat: no review card follows
        await until(lambda: not window.chat.busy, what="the end of the turn")
        assert json.loads(tool_messages(llm.bodies()[2])[0]["content"])["text"] == "Teal."
        assert "servers' sampling 11 in / 7 out" in window.status_meter.context_label.text()

    run_app(qapp, tmp_path, llm, scenario)


@needs_everything
def test_server_everything_asks_with_every_kind_of_field_and_lists_the_default_roots(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    params = everything_stdio_params()
    everything = {"command": params.command, "args": list(params.args)}

    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        llm.queue(
            calls(ToolCall("everything__trigger-elicitation-request", {}, id="call_form")),
            calls(ToolCall("everything__get-roots-list", {}, id="call_roots")),
            text("Done."),
        )
        window.composer.editor.setPlainText("Fill in the reference form, then list my folders")
        window.composer.send()
        await allow_the_call(window)
        card = await server_question(window, "the form card")
        assert isinstance(card, FormCard)
        assert len(card.editors) == 13  # every kind of field the reference server asks for has an editor
        tool = window.conversation.card("call_form")
        assert tool is not None and tool.state is CallState.ASKING
        card.editors["name"].widget.setText("Grace Hopper")  # type: ignore[attr-defined]
        card.submit.click()
        await allow_the_call(window)
        await until(lambda: not window.chat.busy, what="the end of the turn")
        form, roots = (m["content"] for m in tool_messages(llm.bodies()[2]))
        assert "Name: Grace Hopper" in form and "42" in form  # the edit and a default went back
        assert tmp_path.as_uri() in roots  # the default roots from Settings reach the server

    run_app(qapp, tmp_path, llm, scenario, servers={"everything": everything}, roots=(str(tmp_path),))
