"""The scenes `screens.py` plays on the real window, in one theme at one size, and how each is grabbed.

The environment (the throwaway home, the platform) is set by `screens.py` before this module is imported.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.core.app_settings import AppSettings, default_settings_path, save_settings
from desktop_app.core.apps.session import SessionState
from desktop_app.core.model.settings import ModelSettings
from desktop_app.ui.apps.web_engine import prepare_application
from desktop_app.ui.asks.form_card import FormCard
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.tool_card import ToolCard
from desktop_app.ui.servers.servers_panel import TOOLS_TAB
from desktop_app.ui.settings.settings_dialog import SettingsDialog
from desktop_app.ui.shell.application import set_up_application
from desktop_app.ui.shell.main_window import MainWindow
from tests.llm_server import ScriptedLLM, ToolCall, calls, text
from tests.servers.registry_documents import hello, simple, weather
from tests.servers.registry_fixture import RegistryFixture, response, running_registry
from tests.window_kit import run_in_qt, window_session

ANSWER = """The guide's key idea is **catalog + pull**: the model sees a short catalog, then reads what it needs.

| Step | From → to | What travels |
|---|---|---|
| Catalog | host → model | URIs, names, one-line descriptions |
| Pull | model → server | `read_resource` with one URI |
| Read | server → model | the document, whole |

I saved that as a note. The same pull from a script:

```python
async with ClientSession(read, write) as session:
    await session.initialize()
    guide = await session.read_resource("demo://guide")
    print(guide.contents[0].text[:200])
```"""
NOTES = (
    ("Approvals", "Every real tool call waits for a yes — from the model or from an app."),
    ("Sandbox", "Apps run in an iframe sandbox with a CSP built from what they declare."),
)

TITLE_BAR = 30
"""The height of the title bar drawn over a dialog in the pictures."""


class DesktopKeyring(KeyringBackend):
    """A desktop's keyring, in memory: the pictures show what a user with one sees (a headless run has none,
    and the plaintext file's warning and its path would be in them)."""

    priority = 5.0

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self._items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self._items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self._items.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


DesktopKeyring.__module__ = "keyring.backends.SecretService"  # labelled as GNOME's, the usual Linux keyring


async def until(check: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the screenshot scenario stalled waiting for {what}")
        await asyncio.sleep(0.05)


def composed(window: QWidget, over: QWidget) -> QPixmap:
    """`window` with `over` (a dialog or another window) drawn centred on it, with a title bar and a shadow."""
    picture = window.grab()
    front = over.grab()
    bar = TITLE_BAR
    width, height = front.width(), front.height() + bar
    box = QRect((picture.width() - width) // 2, max(0, (picture.height() - height) // 2), width, height)
    palette = over.palette()
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    window_colour = palette.color(QPalette.ColorRole.Window)
    painter = QPainter(picture)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(0, 0, 0, 14 if dark else 6))
    for step in range(1, 13):  # a soft shadow
        painter.drawRoundedRect(box.adjusted(-step, -step + 4, step, step + 4), step, step)
    title = box.adjusted(0, 0, 0, bar - height)
    painter.fillRect(title, window_colour.lighter(135) if dark else window_colour.darker(110))
    painter.setPen(palette.color(QPalette.ColorRole.WindowText))
    font = QFont(over.font())
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(title, Qt.AlignmentFlag.AlignCenter, over.windowTitle())
    painter.drawPixmap(box.left(), box.top() + bar, front)
    painter.setPen(QColor(255, 255, 255, 70) if dark else QColor(0, 0, 0, 80))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(box.adjusted(0, 0, -1, -1))
    painter.end()
    return picture


class Scenes:
    """The scenes in order; each grabs only the screens asked for."""

    def __init__(self, window: MainWindow, llm: ScriptedLLM, shots: dict[str, Path]) -> None:
        self.window = window
        self.llm = llm
        self.shots = shots

    def wants(self, *names: str) -> bool:
        return any(name in self.shots for name in names)

    async def shoot(self, name: str, over: QWidget | None = None, settle: float = 0.8) -> None:
        if name not in self.shots:
            return
        if over is not None:  # as on a screen of the window's size (under Xvfb the screen may be larger)
            room = self.window.size()
            over.setMaximumSize(room.width() - 40, room.height() - 60 - TITLE_BAR)  # a dialog may grow to its screen
        await asyncio.sleep(settle)  # the last layout, render and repaint settle
        picture = self.window.grab() if over is None else composed(self.window, over)
        picture.save(str(self.shots[name]), "PNG", 0)  # quality 0: the smallest file, still lossless
        print(f"wrote {self.shots[name]}")

    async def send(self, prompt: str) -> None:
        self.window.composer.editor.setPlainText(prompt)
        self.window.composer.send()

    async def approval(self) -> ApprovalPanel:
        def pending() -> list[ApprovalPanel]:
            return [c for c in self.window.asker.pending if isinstance(c, ApprovalPanel) and c.open]

        await until(pending, "an approval card")
        return pending()[0]

    async def new_chat(self) -> None:
        self.window.menu_actions.new_chat.trigger()
        await until(lambda: not self.window.ledger.answers(), "a new chat")

    async def main_empty(self) -> None:
        await self.shoot("main-empty", settle=1.5)

    async def conversation(self) -> None:
        """A read, an approved call and an answer with a table and code; its approval and ledger on the way."""
        if not self.wants("approval", "conversation", "ledger"):
            return
        self.llm.queue(
            calls(ToolCall("read_resource", {"uri": "demo://guide"}), usage=(1_561, 24)),
            calls(
                ToolCall("demo__add_note", {"title": "Catalog + pull", "text": "Read on demand, whole."}),
                usage=(5_142, 38),
            ),
            text(*[ANSWER[i : i + 40] for i in range(0, len(ANSWER), 40)], usage=(5_196, 181)),
        )
        await self.send("What is the guide's key idea? Save it as a note, and show me how a script reads it.")
        approval = await self.approval()
        await self.shoot("approval")
        approval.allow_once.click()
        await until(lambda: not self.window.chat.busy and self.window.ledger.answers(), "the answer")
        await self.shoot("conversation", settle=1.5)
        if self.wants("ledger"):
            ledger = self.window.ledger.open_ledger(self.window.ledger.answers()[-1])
            await self.shoot("ledger", ledger)
            ledger.close()

    async def servers_tools(self) -> None:
        if not self.wants("servers-tools"):
            return
        window = self.window
        window.servers_dock.show()
        window.servers_dock.raise_()
        panel = window.servers_panel
        panel._tabs.setCurrentIndex(TOOLS_TAB)
        rows = panel._tools.rows
        await until(lambda: rows.count() > 0, "the demo's tools")
        chosen = [i for i in range(rows.count()) if rows.item(i).data(Qt.ItemDataRole.UserRole) == "add_note"]
        rows.setCurrentRow(chosen[0] if chosen else 0)
        await self.shoot("servers-tools")
        window.resources_dock.raise_()

    async def settings(self) -> None:
        if not self.wants("settings"):
            return
        self.window.settings_actions.open_settings()
        await until(lambda: self._visible(SettingsDialog), "the settings")
        dialog = self._visible(SettingsDialog)
        assert dialog is not None
        await self.shoot("settings", dialog)
        dialog.reject()

    def _visible(self, kind: type[SettingsDialog]) -> SettingsDialog | None:
        return next((d for d in self.window.findChildren(kind) if d.isVisible()), None)

    async def gallery(self) -> None:
        if not self.wants("gallery"):
            return
        dialog = self.window.gallery.open_gallery()
        await until(lambda: dialog.list.count() >= 5, "the registry's list")
        dialog.list.setCurrentRow(1)
        pane = dialog.pane
        await until(lambda: pane.pages.currentWidget() is pane.scroller, "a server's details")
        await self.shoot("gallery", dialog, settle=1.5)  # and its icons
        dialog.close()

    async def question(self) -> None:
        """The demo's `plan_meeting` asks for the meeting's details: its form, pending."""
        if not self.wants("question"):
            return
        await self.new_chat()
        self.llm.queue(
            calls(ToolCall("demo__plan_meeting", {})),
            text("No meeting was planned: you declined the form."),
        )
        await self.send("Plan a meeting about the field report with the team.")
        (await self.approval()).allow_once.click()
        await until(lambda: [c for c in self.window.asker.pending if isinstance(c, FormCard)], "the form")
        form = next(c for c in self.window.asker.pending if isinstance(c, FormCard))
        form.editors["title"].widget.setText("Field report review")  # type: ignore[attr-defined]
        await self.shoot("question")
        form.decline.click()
        await until(lambda: not self.window.chat.busy, "the end of the turn")

    async def app_view(self) -> None:
        """The demo's notes board, an MCP App, inside its tool card."""
        if not self.wants("app-view"):
            return
        await self.new_chat()
        window = self.window
        self.llm.queue(
            *[calls(ToolCall("demo__add_note", {"title": title, "text": body})) for title, body in NOTES],
            calls(ToolCall("demo__show_notes_board", {})),
            text("Here is your notes board. Click a note to tell me which one you mean, or add one from the board."),
        )
        await self.send("Note down approvals and the sandbox, then show me my notes board.")
        for _ in range(len(NOTES) + 1):
            (await self.approval()).allow_once.click()
        await until(lambda: not window.chat.busy and window.apps.views, "the notes board")
        view = window.apps.views[-1]
        await until(lambda: view.session.state is SessionState.READY, "the board ready")
        card = next(c for c in window.conversation.findChildren(ToolCard) if c.isAncestorOf(view))
        await asyncio.sleep(0.5)  # the card's layout settles before it is measured
        content = window.conversation.widget()
        assert content is not None
        window.conversation.verticalScrollBar().setValue(card.mapTo(content, QPoint(0, 0)).y() - 8)
        await self.shoot("app-view", settle=2.5)

    async def play(self) -> None:
        for scene in (
            self.main_empty,
            self.conversation,
            self.servers_tools,
            self.settings,
            self.gallery,
            self.question,
            self.app_view,
        ):
            await scene()


def gallery_catalogue(registry: RegistryFixture) -> None:
    """A registry's first page, one server deprecated."""
    greeter = hello(registry)
    del greeter["icons"]  # one colour: each server gets the gallery's own letter instead
    registry.add(response(greeter), response(weather()))
    for name, title, description in (
        ("io.github.acme/notes", "Notes", "Search and edit the notes in a folder of Markdown files"),
        ("io.github.acme/calendar", "Calendar", "Read and plan events in your CalDAV calendars"),
        ("io.github.acme/issues", "Issues", "List, triage and comment on a project's issues"),
    ):
        registry.add(response(simple(name, description, title=title)))
    old = response(simple("io.github.acme/old-weather", "The old forecasts", "0.1.0"), status="deprecated")
    registry.add(old)


async def _scenario(app: QApplication, shots: dict[str, Path], size: tuple[int, int], llm: ScriptedLLM) -> None:
    async with window_session(app, default_settings_path().parent / "servers.json") as window:
        window.move(0, 0)
        window.resize(*size)
        await until(lambda: window.size().toTuple() == size, f"the window at {size}")
        await until(lambda: window.bridge.host.ready_count() == 1, "the demo server")
        await until(lambda: not window.dock_fit._pending.isActive(), "the docks")
        await Scenes(window, llm, shots).play()


def play(shots: dict[str, Path], theme: str, size: tuple[int, int]) -> None:
    """Run the app in `theme` at `size` and write `shots` (screen name -> file)."""
    prepare_application()  # MCP App views need this before the QApplication exists
    with ScriptedLLM() as llm, running_registry() as registry:
        gallery_catalogue(registry)
        model = ModelSettings("openai/gpt-4.1-mini", api_base=llm.url)
        settings = AppSettings(model, provider="compatible", registry_url=registry.url, theme=theme)
        save_settings(default_settings_path(), settings)
        app = QApplication.instance() or QApplication(sys.argv[:1])
        assert isinstance(app, QApplication)
        set_up_application(app)  # the app's names, quit policy and the saved theme
        run_in_qt(app, _scenario(app, shots, size, llm))
