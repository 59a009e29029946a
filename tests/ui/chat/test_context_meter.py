"""The status bar's count of the catalog in the real window: the system prompt's tokens beside what pasting
every resource would take, read again only when the resources change. The fixture server over stdio and a
scripted provider over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from desktop_app.core.catalog import Catalog
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import LITELLM_WARNINGS, ScriptedLLM
from tests.ui.chat_window import run_app, until

pytestmark = LITELLM_WARNINGS


def test_context_meter_compares_the_catalog_with_a_naive_dump(
    qapp: QApplication, tmp_path: Path, llm: ScriptedLLM
) -> None:
    async def scenario(window: MainWindow, llm: ScriptedLLM) -> None:
        meter = window.status_meter.context_label
        await until(lambda: "pasting every resource would take" in meter.text(), timeout=30, what="the dump figure")
        assert meter.text().startswith("Context: catalog ")
        measured = window.chat.meter.dump
        window.chat.meter.refresh()  # same resources: the figure is reused, nothing is read again
        await until(lambda: "pasting every resource would take" in meter.text())
        assert window.chat.meter.dump is measured
        await window.bridge.host.connection("fx").call_tool("notify_change", {})
        await until(lambda: window.chat.meter.dump is not measured, what="a new figure for the new resource")

        # A catalog that changes while it is counted (a server listing thousands of resources at
        # start-up) is not read: the newer catalog's own count decides.
        engine, host = window.chat.engine(), window.bridge.host
        assert engine is not None
        counted = engine.system_prompt

        async def changing(query: str = "", catalog: Any = None) -> Any:
            prompt = await counted(query, catalog)
            host.catalog = Catalog(dict(host.catalog.servers))
            return prompt

        engine.system_prompt = changing  # type: ignore[method-assign]
        window.chat.meter.dump = None
        await window.chat.meter.count(engine)
        assert window.chat.meter.dump is None

    run_app(qapp, tmp_path, llm, scenario)
