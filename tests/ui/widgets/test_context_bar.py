"""The status bar's context meter is a small bar against the model's context window: the accent colour, then
caution from 75 % and danger from 90 %, its numbers in its tooltip and accessible description; in the real
window it fills with the chat's last call to the model and empties for a new chat."""

from __future__ import annotations

import asyncio
import html
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication, QStatusBar
from pytestqt.qtbot import QtBot

from desktop_app.core.app_settings import AppSettings
from desktop_app.core.model.llm import load_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.qt_kit.theme import restyle, tokens
from desktop_app.qt_kit.tokens import DARK
from desktop_app.ui.shell.application import apply_theme
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.ui.widgets.context_bar import ACCESSIBLE_NAME, ContextBar, ContextUse, compact, level
from tests.hosting import FIXTURE_SCRIPT, eventually
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM, text
from tests.window_kit import run_window_scenario

pytestmark = LITELLM_WARNINGS


def use(used: int, window: int | None = 128_000, conversation: int | None = None) -> ContextUse:
    return ContextUse(used, window, "openai/gpt-4o-mini", 1_200, 412, conversation)


def tooltip(meter: ContextBar) -> str:
    """The bar's tooltip as it reads (it is escaped rich text: shown exactly as written)."""
    tip = meter.bar.toolTip()
    assert tip.startswith('<p style="white-space:pre-wrap">') and tip.endswith("</p>")
    return html.unescape(tip.removeprefix('<p style="white-space:pre-wrap">').removesuffix("</p>"))


def chunk_colour(bar: ContextBar) -> str:
    return bar.bar.styleSheet().split("::chunk")[1].split("background: ")[1].split(";")[0]


def test_the_bar_fills_in_the_accent_then_caution_then_danger_with_its_numbers_in_the_tooltip(
    qtbot: QtBot, qapp: QApplication
) -> None:
    status = QStatusBar()
    meter = ContextBar()
    status.addWidget(meter, 1)
    qtbot.addWidget(status)
    status.resize(900, status.sizeHint().height())
    status.show()
    assert not meter.isVisible(), "no bar before the first count"
    assert (level(95_999, 128_000), level(96_000, 128_000), level(115_200, 128_000)) == ("accent", "caution", "danger")
    assert level(10**9, None) == "accent", "an unknown window never reads as full"
    assert (compact(412), compact(3_140), compact(90_764), compact(128_000), compact(1_047_576)) == (
        "412",
        "3.1k",
        "91k",
        "128k",
        "1M",
    )

    palette = tokens()
    for used, colour in ((64_000, palette.accent), (96_000, palette.caution), (115_200, palette.danger)):
        meter.show_use(use(used, conversation=used - 1_200), ["Context: catalog 412 tokens (9 entries)"], ["More."])
        assert meter.isVisible() and chunk_colour(meter) == colour
        assert meter.bar.value() == round(used / 1280)
        tip = tooltip(meter)
        share = f"{used / 128_000:.0%}"
        numbers = f"Context: {used:,} of 128,000 tokens ({share} of the context window of openai/gpt-4o-mini)."
        assert tip.startswith(numbers) and tip.endswith("\nMore.")
        assert "the catalog 412 of them" in tip and f"the conversation {used - 1_200:,}" in tip
        assert meter.bar.accessibleDescription() == tip and meter.label.toolTip() == meter.bar.toolTip()
    assert meter.bar.accessibleName() == ACCESSIBLE_NAME
    qtbot.waitUntil(meter.label.fits)  # once the bar's layout gives the figure its room
    assert meter.label.shown() == "115k / 128k"
    assert meter.label.text() == "Context: catalog 412 tokens (9 entries)", "the whole wording stays its text"
    assert 80 <= meter.bar.width() <= 120 and meter.bar.height() <= status.height()

    meter.show_use(use(3_140, window=None), ["Context: catalog 412 tokens", "x"], [])
    assert meter.label.shown() == "3.1k tokens" and chunk_colour(meter) == palette.accent, "the figure, never less"
    assert "the context window of openai/gpt-4o-mini is not known" in meter.bar.accessibleDescription()

    try:  # the colour is the theme's token: a switch of theme paints it again
        apply_theme(qapp, "dark")
        restyle()
        assert chunk_colour(meter) == DARK.accent and DARK.border in meter.bar.styleSheet()
    finally:
        apply_theme(qapp, "system")
        restyle()


def test_the_window_meter_fills_with_the_chats_last_call_and_empties_for_a_new_chat(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    model = ModelSettings("openai/gpt-4o-mini", api_base=llm.url)  # the model library knows its window: 128,000
    llm.queue(text("A long answer.", usage=(100_000, 2_000)), text("Longer still.", usage=(114_000, 1_500)))

    async def steps(window: MainWindow) -> None:
        await asyncio.wait_for(load_litellm(), 120)
        meter = window.status_meter.context_bar
        await eventually(lambda: meter.isVisible(), 60, "the first count")
        assert meter.level == "accent" and "of 128,000 tokens" in tooltip(meter)
        assert window.status_meter.context_label.text().startswith("Context: catalog ")

        window.composer.editor.setPlainText("Tell me everything.")
        window.composer.send()
        await eventually(lambda: meter.level == "caution", 60, "three quarters of the window")
        assert "Context: 102,000 of 128,000 tokens (80% of the context window" in meter.bar.accessibleDescription()
        await eventually(lambda: not window.chat.busy, 60, "the turn's end")
        window.composer.editor.setPlainText("And more.")
        window.composer.send()
        await eventually(lambda: meter.level == "danger", 60, "nine tenths of the window")
        assert "115,500 of 128,000" in tooltip(meter)
        await eventually(lambda: not window.chat.busy, 60, "the turn's end")

        window.chat_actions.new_chat()  # another chat's context is not this one's
        await eventually(lambda: meter.level == "accent", 60, "the new chat's system prompt alone")
        assert "the conversation" not in tooltip(meter) and meter.bar.value() <= 5

    fixture = {"command": sys.executable, "args": [str(FIXTURE_SCRIPT)]}
    settings = AppSettings(model, provider="compatible")
    run_window_scenario(qapp, tmp_path, steps, servers={"fx": fixture}, settings=settings, ready=1)
