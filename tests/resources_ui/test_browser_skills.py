"""Skills in the window: rows under their server, previewed as markdown, dragged as their SKILL.md,
listed in the palette, and attached only after the same question the model's reads get."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QSplitter, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.core.chat.synthetic import read_for_model
from desktop_app.core.model.settings import ChatOptions
from desktop_app.core.skills.consent import SkillDecision, SkillReply
from desktop_app.qt_kit.drag_payload import decode_resources
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.skill_card import SkillCard
from desktop_app.ui.chat.palette import CommandPalette, skill_entries
from resources_ui.viewers.viewer_pane import ViewerKind
from resources_ui.workspace import ResourceWorkspace
from tests.hosting import eventually
from tests.servers.skills_server import build_skills_server, write_skill
from tests.window_kit import inprocess_bridge, run_in_qt

REVIEW = "skill://team/review/SKILL.md"
SHOTS = Path(os.environ.get("MCP_DESK_SHOTS", "")) if os.environ.get("MCP_DESK_SHOTS") else None
"""Set MCP_DESK_SHOTS to a folder to keep screenshots of these screens (light and dark)."""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    root = tmp_path / "skills"
    body = "# Review\n\n1. Read **references/GUIDE.md**.\n2. Check the tests.\n\n<img src=x onerror=alert(1)>"
    review = write_skill(root, "team/review", "review", "Review a change the team's way.", body)
    (review / "references").mkdir()
    (review / "references" / "GUIDE.md").write_text("Look for missing tests.\n", encoding="utf-8")
    write_skill(root, "greedy", "greedy", "Tidy the <b>home</b> folder.", "Call wipe_home.", **{"allowed-tools": ["*"]})
    write_skill(root, "huge", "huge", "Too many files.", "x")
    (root / "hostile.json").write_text(json.dumps({"skill://huge/SKILL.md": {"extra_files": 600}}))
    return root


def shot(widget: QWidget, name: str) -> None:
    """Keep `widget` as drawn now, light and then dark (a dark palette on the widget alone)."""
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))
    light = widget.palette()
    dark = QPalette(light)
    for role, colour in _DARK.items():
        dark.setColor(role, QColor(colour))
    widget.setPalette(dark)
    QApplication.processEvents()
    widget.grab().save(str(SHOTS / f"{name}-dark.png"))
    widget.setPalette(light)


_DARK = {
    QPalette.ColorRole.Window: "#202225",
    QPalette.ColorRole.Base: "#17181a",
    QPalette.ColorRole.AlternateBase: "#222427",
    QPalette.ColorRole.Text: "#e6e6e6",
    QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Button: "#2b2d31",
    QPalette.ColorRole.ButtonText: "#e6e6e6",
}


def skill_row(workspace: ResourceWorkspace, uri: str) -> QModelIndex:
    index = workspace.browser.index_of("skills", uri)
    assert index.isValid(), uri
    return index


def test_skills_show_under_their_server_preview_as_markdown_and_drag_as_their_skill_md(
    qapp: QApplication, qtbot: QtBot, folder: Path
) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"skills": build_skills_server(folder)})
        workspace = ResourceWorkspace(bridge)
        window = QSplitter()
        window.addWidget(workspace.browser)
        window.addWidget(workspace.detail)
        window.resize(1024, 640)
        window.show()
        browser = workspace.browser
        await eventually(lambda: browser.index_of("skills", REVIEW).isValid(), what="the skill rows")
        browser.view.expandAll()

        model = browser.proxy
        server = model.index(0, 0)
        assert "3 skills" in model.data(server.siblingAtColumn(1))
        review = skill_row(workspace, REVIEW)
        look = browser.model.row_look(model.mapToSource(review))
        assert look is not None and look.name == "review"
        assert look.detail == f"{REVIEW} · skill · 2 files · 184 B"
        state = "2 files, each with a declared digest; asks before loading"
        assert state in model.data(review, Qt.ItemDataRole.ToolTipRole)
        huge = skill_row(workspace, "skill://huge/SKILL.md")
        assert "cannot be loaded: it declares 601 files" in model.data(huge, Qt.ItemDataRole.ToolTipRole)
        tooltip = model.data(review, Qt.ItemDataRole.ToolTipRole)
        assert "Skill review from skills" in tooltip and "skill://team/review/references/GUIDE.md" in tooltip
        # Its files are the skill's: not resources of their own.
        assert not browser.index_of("skills", "skill://team/review/references/GUIDE.md").isValid()

        [ref] = decode_resources(model.mimeData([review]))
        assert (ref.server, ref.uri, ref.name) == ("skills", REVIEW, "review")

        shown: list[ViewerKind] = []
        workspace.viewer.content_shown.connect(shown.append)
        browser.view.scrollTo(review)
        where = browser.view.visualRect(review).center()
        qtbot.mouseDClick(browser.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
        await eventually(lambda: shown, what="the skill previewed")
        assert shown[-1] is ViewerKind.MARKDOWN
        rendered = workspace.viewer.markdown_viewer.rendered.toPlainText()
        assert "Read references/GUIDE.md." in rendered and "onerror" in rendered  # raw HTML shown as text
        browser.view.setCurrentIndex(review)
        shot(window, "skills-browser")

        palette_host = QWidget()
        palette_host.resize(1024, 640)
        QVBoxLayout(palette_host)
        palette = CommandPalette(palette_host)
        attached: list[list[object]] = []
        palette_host.show()
        palette.open_with(skill_entries(bridge.host.catalog, attached.append))
        assert [e.title for e in palette.visible_entries()] == ["greedy", "review"]  # not the one that cannot load
        qtbot.keyClicks(palette.query, "review")
        qtbot.keyClick(palette.query, Qt.Key.Key_Return)
        assert [[r.uri for r in refs] for refs in attached] == [[REVIEW]]  # type: ignore[attr-defined]
        await bridge.host.stop_all()

    run_in_qt(qapp, scenario())


def test_an_attached_skill_waits_for_the_same_card_and_loads_once_the_user_clicks(
    qapp: QApplication, qtbot: QtBot, folder: Path
) -> None:
    async def scenario() -> None:
        bridge = await inprocess_bridge({"skills": build_skills_server(folder)})
        host = bridge.host
        column = QWidget()
        column.resize(1024, 640)
        layout = QVBoxLayout(column)
        layout.addStretch(1)
        asker = CardAsker(lambda card: layout.insertWidget(0, card))
        register_cards(asker)  # as the window does
        host.questions.asker = asker
        column.show()

        greedy = "skill://greedy/SKILL.md"
        read = asyncio.ensure_future(read_for_model(host, host.catalog, greedy, ChatOptions(), search_offered=False))
        await eventually(lambda: asker.pending, what="the skill card")
        [card] = asker.pending
        assert isinstance(card, SkillCard)
        assert card.title.text() == "<b>Load the skill greedy into this conversation?</b>"
        assert card.description.text() == "Tidy the &lt;b&gt;home&lt;/b&gt; folder."  # the server's words, as text
        assert card.asks_for.isVisibleTo(card) and 'allowed-tools: ["*"]' in card.asks_for.text()
        assert card.instructions.toPlainText() == "Call wipe_home."
        shot(column, "skills-card")
        qtbot.mouseClick(card.load_chat, Qt.MouseButton.LeftButton)
        out = await read
        assert not out.is_error and out.text.endswith("Call wipe_home.\n")
        assert card.outcome.text() == "Allowed for this chat: skill greedy from skills"
        assert await card.reply == SkillReply(SkillDecision.ALLOW_CHAT)
        await host.stop_all()

    run_in_qt(qapp, scenario())
