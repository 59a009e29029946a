"""The MCP Desk main window: servers and resources on the left, the conversation in the middle,
the viewer on the right. Docks can be moved and hidden; their layout is remembered.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.apps.questions import AppPermissionQuestion, OpenLinkQuestion
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.chat.approval import AlwaysAllowRules, ApprovalRequest, Requester
from desktop_app.core.chat.context import SystemPrompt
from desktop_app.core.chat.conversations import ConversationStore
from desktop_app.core.chat.events import Usage
from desktop_app.core.chat.prompts import prompt_draft
from desktop_app.core.config_file import ConfigError
from desktop_app.core.config_import import known_sources
from desktop_app.core.content import ResourceContent
from desktop_app.core.events import SamplingUsage
from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import (
    SecretStore,
    SecretStoreError,
    WrongPasswordError,
    encrypt_plaintext_store,
    open_secret_store,
)
from desktop_app.core.server_errors import describe_error
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.ui.apps.cards import OpenLinkCard, PermissionCard
from desktop_app.ui.apps.controller import AppViews
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.sign_in_card import SignInCard
from desktop_app.ui.attention import Attention
from desktop_app.ui.chat_controller import ChatController
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.pane import ConversationPane
from desktop_app.ui.conversation.taint_chip import TaintChip
from desktop_app.ui.conversation.tool_card import CallState, ToolCard
from desktop_app.ui.gallery.drops import bundle_paths, choose_bundle
from desktop_app.ui.gallery.gallery_controller import GalleryController
from desktop_app.ui.history_panel import HistoryPanel
from desktop_app.ui.palette import CommandPalette, PaletteEntry
from desktop_app.ui.password_dialog import PasswordDialog
from desktop_app.ui.prompt_form import PromptForm
from desktop_app.ui.servers_panel import ServersPanel
from desktop_app.ui.settings_dialog import SettingsDialog
from desktop_app.ui.style import ERROR_STYLE
from desktop_app.ui.system_browser import SystemBrowser, ask_to_open
from resources_ui.drag_payload import ResourceRef
from resources_ui.workspace import ResourceWorkspace

DEMO_STEPPED_ASIDE = (
    "The demo server stepped aside now that you have a server of your own; what you opened from it stays"
    " on screen, read-only. Remove all your servers to bring the demo back."
)
NO_MODEL = (
    "Choose a model to send your message to: a provider, a model and, if it needs one, an API key."
    " Your message stays in the composer; press Send again once the settings are saved."
)


class MainWindow(QMainWindow):
    """Composes the widgets; closing asks the app to stop every server before quitting."""

    def __init__(
        self,
        bridge: CoreBridge,
        on_close: Callable[[], object],
        *,
        conversations: ConversationStore,
        rules: AlwaysAllowRules,
        settings: AppSettings,
        settings_path: Path,
    ) -> None:
        super().__init__()
        self.bridge = bridge
        self._on_close = on_close
        self._closing = False
        self._settings_path = settings_path
        self.setWindowTitle("MCP Desk")
        self.attention = Attention(self, self.bring_to_front)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)

        # The conversation, in the middle.
        self.conversation = ConversationView()
        self.taint_chip = TaintChip()
        self.prompt_form = PromptForm(bridge)
        self.composer = Composer()
        self.conversation_pane = ConversationPane(
            self.conversation, self.prompt_form, self.composer, header=self.taint_chip
        )
        self.setCentralWidget(self.conversation_pane)
        self.command_palette = CommandPalette(self.conversation_pane)

        # Resources, servers and history on the left; the viewer on the right.
        self.resources = ResourceWorkspace(bridge, parent=self)
        self.servers_panel = ServersPanel(bridge)
        self.history = HistoryPanel(conversations)
        resources_dock = self._dock(
            "Resources", "resourcesDock", self.resources.browser, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        servers_dock = self._dock("Servers", "serversDock", self.servers_panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        history_dock = self._dock("History", "historyDock", self.history, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(resources_dock, servers_dock)
        self.tabifyDockWidget(servers_dock, history_dock)
        resources_dock.raise_()
        self.viewer_dock = self._dock(
            "Viewer", "viewerDock", self.resources.detail, Qt.DockWidgetArea.RightDockWidgetArea
        )

        self.asker = CardAsker(self._place_card, self)
        self.asker.register(SignInQuestion, lambda question: SignInCard(question, bridge))
        self.asker.register(ApprovalRequest, ApprovalPanel)
        register_cards(self.asker)
        self.asker.register(OpenLinkQuestion, OpenLinkCard)
        self.asker.register(AppPermissionQuestion, PermissionCard)
        bridge.host.questions.asker = self.asker
        bridge.host.sign_in.opener = SystemBrowser()
        bridge.host.sign_in.client_metadata_url = settings.client_metadata_url or None
        self.chat = ChatController(bridge, self.conversation, conversations, rules, settings, self.asker)
        self.gallery = GalleryController(bridge, lambda: self.chat.settings.registry_url, self.open_settings, self)
        self.setAcceptDrops(True)  # .mcpb bundles dropped anywhere on the window
        # MCP App views: in their tool cards, or in the viewer (QtWebEngine loads with the first one).
        self.apps = AppViews(
            bridge,
            self.conversation,
            policy=self.chat.policy,
            chat=self.chat,
            show_in_viewer=self._show_app,
            clear_viewer=self.resources.viewer.clear,
            parent=self,
        )
        self.chat.apps = self.apps
        self.resources.viewer.set_app_factory(self.apps.view_for_resource)
        self.resources.viewer.app_released.connect(self.apps.released)
        self._servers_dock = servers_dock
        self._wire()
        self._menus([resources_dock, servers_dock, history_dock, self.viewer_dock])
        self._status_bar()
        self.history.set_current(self.chat.conversation.id)
        restored = QSettings()
        geometry, state = restored.value("window/geometry"), restored.value("window/state")
        if geometry is None or state is None or not (self.restoreGeometry(geometry) and self.restoreState(state)):
            # First run: the conversation gets the most room, resources and viewer flank it; the window
            # never starts larger than the screen's free area (a laptop's 1366 × 768 is common).
            free = self.screen().availableGeometry()
            self.resize(min(1480, free.width()), min(920, free.height()))
            # Dock sizes only take once the window is laid out: apply them on the first show.
            QTimer.singleShot(
                0, lambda: self.resizeDocks([resources_dock, self.viewer_dock], [380, 440], Qt.Orientation.Horizontal)
            )

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # -- wiring ----------------------------------------------------------------------------

    def _wire(self) -> None:
        chat, composer = self.chat, self.composer
        composer.send_requested.connect(self._send)
        composer.cancel_requested.connect(chat.cancel)
        composer.palette_requested.connect(self.open_palette)
        composer.open_requested.connect(self.open_resource)
        chat.busy_changed.connect(composer.set_busy)
        chat.settings_needed.connect(lambda: self.open_settings(NO_MODEL))
        chat.draft_returned.connect(self._restore_draft)
        chat.usage_changed.connect(self._on_usage)
        chat.context_changed.connect(self._on_context)
        chat.dump_measured.connect(self._on_dump)
        chat.taint_changed.connect(self.taint_chip.set_reasons)
        chat.conversations_changed.connect(lambda: self.history.set_current(self.chat.conversation.id))
        self.resources.attach_requested.connect(self.attach)
        self.resources.web_link_requested.connect(lambda url: ask_to_open(self, url))
        self.conversation.open_resource.connect(lambda uri, server: self.open_resource(ResourceRef(server, uri, uri)))
        self.conversation.open_content.connect(self.show_content)
        self.prompt_form.submitted.connect(self._use_prompt)
        self.history.resume_requested.connect(chat.resume)
        self.history.rename_requested.connect(chat.rename)
        self.history.delete_requested.connect(chat.delete)
        self.history.new_requested.connect(self.new_chat)
        self.bridge.server_state_changed.connect(self._update_counts)
        self.bridge.server_removed.connect(self._update_counts)
        self.bridge.server_state_changed.connect(self._withdraw_questions)
        self.bridge.sampling_used.connect(self._on_sampling)
        self.bridge.server_removed.connect(
            lambda name: self.asker.withdraw("The server was removed, so its question was withdrawn.", server=name)
        )
        self.bridge.fallback_stepped_aside.connect(
            lambda _names: self.conversation.add_message("info", DEMO_STEPPED_ASIDE)
        )
        self.bridge.catalog_changed.connect(lambda *_: self.chat.refresh_context())
        self.bridge.task_failed.connect(lambda message: self.statusBar().showMessage(message, 8000))
        self.gallery.sig_updates.connect(self.servers_panel.show_updates)
        self.servers_panel.update_requested.connect(self.gallery.open_update)

    def _menus(self, docks: list[QDockWidget]) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self._action("&New chat", "Ctrl+N", self.new_chat))
        file_menu.addAction(self._action("Command &palette…", "Ctrl+K", self.open_palette))
        file_menu.addAction(self._action("&Settings…", "Ctrl+,", self.open_settings))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", "Ctrl+Q", self.close))
        servers_menu = bar.addMenu("&Servers")
        servers_menu.addAction(self._action("&Find servers…", "Ctrl+Shift+F", self.gallery.open_gallery))
        servers_menu.addAction(self._action("Install &bundle (.mcpb)…", None, self.open_bundle_file))
        servers_menu.addAction(self._action("&Add server…", None, lambda: self.servers_panel.open_editor(None)))
        import_menu = servers_menu.addMenu("&Import from")
        for source in known_sources():
            action = import_menu.addAction(f"{source.client} ({source.path})")
            action.setEnabled(source.exists)
            action.triggered.connect(lambda _=False, path=source.path: self.import_servers(path))
        import_menu.addAction("Other file…", self._import_other)
        servers_menu.addSeparator()
        servers_menu.addAction(self._action("&Reconnect all", None, self._reconnect_all))
        view_menu = bar.addMenu("&View")
        for dock in docks:
            view_menu.addAction(dock.toggleViewAction())

    def _action(self, text: str, shortcut: str | None, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _=False: slot())
        return action

    def _show_secrets_backend(self, store: SecretStore | None = None) -> None:
        store = store or self.bridge.secrets
        if store is None:
            self._secrets_label.setText("Secrets: unavailable")
            self._secrets_label.setToolTip("No secret store could be opened (or it is locked).")
            self._secrets_label.setStyleSheet(ERROR_STYLE)
            return
        backend = store.backend
        short = {
            "os-keyring": "system keyring",
            "encrypted-file": "encrypted file",
            "plaintext-file": "plaintext file, not encrypted",
        }[backend.kind]
        self._secrets_label.setText(f"Secrets: {short}")
        self._secrets_label.setToolTip(backend.label)
        self._secrets_label.setStyleSheet("" if backend.encrypted else ERROR_STYLE)

    def _status_bar(self) -> None:
        self._servers_label = QLabel()
        self._model_label = QLabel()
        self._context_label = QLabel()
        self._context_label.setObjectName("contextMeter")
        self._meter: dict[str, str] = {}
        self._catalog_tokens = 0
        self._sampled = (0, 0)
        self._secrets_label = QLabel()
        bar = self.statusBar()
        bar.addWidget(self._servers_label)
        bar.addWidget(self._model_label)
        bar.addWidget(self._context_label)
        bar.addPermanentWidget(self._secrets_label)
        self._show_secrets_backend()
        self.bridge.secrets_changed.connect(self._show_secrets_backend)
        self._update_counts()
        self._update_model()

    # -- questions -------------------------------------------------------------------------

    def _place_card(self, card: AskCard[Any]) -> None:
        """A model's tool approval inside its tool card; other questions under the tool call that
        caused them (the tool card waits with them), else on their server's panel. Unseen, the
        window asks for attention."""
        question = card.question
        call_id = question.call_id
        tool = self.conversation.card(call_id) if call_id is not None else None
        if isinstance(question, ApprovalRequest) and question.requester is Requester.MODEL and call_id is not None:
            self.conversation.embed(call_id, card)
        elif call_id is not None and tool is not None:
            self.conversation.add_below(call_id, card)
            if tool.state is CallState.RUNNING:  # the tool card waits with the question
                tool.set_state(CallState.ASKING)
                card.sig_answered.connect(lambda _reply: _resume(tool))
                card.sig_withdrawn.connect(lambda _why: _resume(tool))
        else:
            self._servers_dock.show()
            self._servers_dock.raise_()
            self.servers_panel.add_card(card)
        if not self.isActiveWindow():
            self.attention.ask_for(question)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.attention.seen()

    def _withdraw_questions(self, name: str, status: ServerStatus) -> None:
        if status.state not in (ServerState.READY, ServerState.STARTING):
            self.asker.withdraw("The server stopped, so its question was withdrawn.", server=name)

    # -- actions ---------------------------------------------------------------------------

    def bring_to_front(self) -> None:
        """Another launch asked for this window: restore, raise and focus it (or flash it)."""
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()
        QApplication.alert(self)

    def new_chat(self) -> None:
        self.chat.new_chat()
        self.prompt_form.hide()
        if self.composer.prompt_origin is not None:
            self.composer.clear()  # a prompt's draft belongs to the chat it was picked in
        self.composer.editor.setFocus()

    def attach(self, refs: list[ResourceRef]) -> None:
        self.composer.attach(refs)
        self.composer.editor.setFocus()

    def open_resource(self, ref: ResourceRef) -> None:
        self.viewer_dock.show()
        self.resources.open_resource(ref)

    def _show_app(self, ref: ResourceRef, view: QWidget) -> None:
        self.viewer_dock.show()
        self.viewer_dock.raise_()
        self.resources.viewer.show_widget(ref, view)

    def show_content(self, content: ResourceContent) -> None:
        self.viewer_dock.show()
        ref = ResourceRef("", content.uri or "tool result", content.uri or "tool result", content.mime_type)
        self.resources.viewer.show_contents(ref, [content])

    def open_palette(self) -> None:
        entries = [
            PaletteEntry("command", "New chat", "Start an empty conversation", self.new_chat),
            PaletteEntry("command", "Settings", "Model, API key, limits, approvals", self.open_settings),
            PaletteEntry("command", "Switch model", "Choose the provider and model", self.open_settings, "model llm"),
            PaletteEntry(
                "command", "Add server", "Connect a new MCP server", lambda: self.servers_panel.open_editor(None)
            ),
            PaletteEntry("command", "Find servers", "Search the MCP Registry and install", self.gallery.open_gallery),
        ]
        for name in self.bridge.host.connections:
            restart = partial(self.bridge.restart_server, name)
            entries.append(PaletteEntry("command", f"Reconnect {name}", "Restart this server", restart))
        for server, prompt in self.bridge.host.catalog.prompts():
            subtitle = f"{server} · {prompt.description or 'prompt'}"
            entries.append(
                PaletteEntry(
                    "prompt", prompt.title or prompt.name, subtitle, partial(self.prompt_form.open_for, server, prompt)
                )
            )
        self.command_palette.open_with(entries)

    def _use_prompt(self, server: str, name: str, arguments: dict[str, str]) -> None:
        self.bridge.spawn(self._fetch_prompt(server, name, arguments), f"Getting prompt {name}")

    async def _fetch_prompt(self, server: str, name: str, arguments: dict[str, str]) -> None:
        try:
            result = await self.bridge.host.connection(server).get_prompt(name, arguments)
        except Exception as exc:
            self.conversation.add_message("notice", f"Prompt {name} from {server} failed: {describe_error(exc)}")
            return
        catalog = self.bridge.host.catalog
        prompt = next((p for s, p in catalog.prompts() if s == server and p.name == name), None)
        title = (prompt.title if prompt is not None else None) or name
        draft = prompt_draft(result, server, name, catalog)
        self.chat.insert_prompt(draft, title)
        refs = [ResourceRef(link.server, link.uri, link.name, link.mime_type) for link in draft.links]
        self.composer.set_prompt_draft(f"“{title}” from {server}", draft.text, refs)
        self.composer.editor.setFocus()

    def open_settings(self, reason: str | None = None) -> None:
        """Settings, non-modal; `reason` says why they opened without being asked for."""
        servers = self.bridge.store.servers if self.bridge.store is not None else {}
        grants = self.bridge.host.asks.grants
        dialog = SettingsDialog(
            self.chat.settings,
            self.bridge.secrets,
            self.chat.rules,
            self,
            servers=servers,
            reason=reason,
            grants=grants,
        )
        dialog.server_rule_revoked.connect(self._revoke_server_rule)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.saved.connect(self._apply_settings)
        dialog.encrypt_requested.connect(lambda: self.bridge.spawn(self.encrypt_secrets(), "Encrypting secrets"))
        self.bridge.secrets_changed.connect(dialog.set_secrets)
        dialog.open()

    async def unlock_secrets(self) -> None:
        """The encrypted secrets file needs its password; without it servers start with no secrets."""
        opened: list[SecretStore] = []

        def check(password: str) -> str | None:
            try:
                opened.append(open_secret_store(data_dir(), password=password))
            except WrongPasswordError:
                return "That password does not open the secrets file."
            except SecretStoreError as exc:
                return str(exc)
            return None

        dialog = PasswordDialog(
            self, "Unlock secrets", "Your API keys and server secrets are in an encrypted file. Enter its password."
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if await dialog.ask(check) is not None and opened:
            self.bridge.set_secrets(opened[-1])
        else:
            self.show_notice("The secrets stay locked: servers and models that need them will fail to connect.")

    async def encrypt_secrets(self) -> None:
        """Move plaintext secrets into an encrypted file protected by a new password."""
        plain = self.bridge.secrets
        if plain is None or plain.backend.kind != "plaintext-file":
            return
        moved: list[SecretStore] = []

        def check(password: str) -> str | None:
            try:
                moved.append(encrypt_plaintext_store(plain, data_dir(), password))
            except SecretStoreError as exc:
                return str(exc)
            return None

        dialog = PasswordDialog(
            self,
            "Protect secrets with a password",
            "Secrets will be kept in an encrypted file; you will enter this password when MCP Desk starts.",
            confirm=True,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if await dialog.ask(check) is not None and moved:
            self.bridge.set_secrets(moved[-1])

    def _revoke_server_rule(self, name: str) -> None:
        """Settings revoked "run this server's read-only tools without asking"."""
        if self.bridge.store is None or name not in self.bridge.store.servers:
            return
        config = self.bridge.store.servers[name]
        try:
            self.bridge.save_server(replace(config, auto_approve_read_only=False), name)
        except ConfigError as exc:
            self.show_notice(f"The rule could not be revoked:\n\n{exc}")

    def _apply_settings(self, settings: AppSettings) -> None:
        try:
            save_settings(self._settings_path, settings)
        except OSError as exc:
            self.show_notice(f"The settings could not be saved: {exc}")
        self.chat.apply_settings(settings)
        self.bridge.host.sign_in.client_metadata_url = settings.client_metadata_url or None
        self.bridge.spawn(self.bridge.host.set_default_roots(settings.roots), "Offering the default roots")
        self._update_model()
        self.gallery.settings_changed()

    def import_servers(self, path: Path) -> None:
        try:
            report = self.bridge.import_servers(path)
        except ConfigError as exc:
            self.show_notice(f"Nothing was imported:\n\n{exc}")
            return
        self.show_notice(report.summary, icon=QMessageBox.Icon.Information)

    def _import_other(self) -> None:
        dialog = QFileDialog(self, "Import servers from", str(Path.home()), "JSON files (*.json);;All files (*)")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.import_servers(Path(path)))
        dialog.open()

    def open_bundle_file(self) -> None:
        choose_bundle(self, self.gallery.open_bundle)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if bundle_paths(event.mimeData()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragEnterEvent) -> None:  # type: ignore[override]
        if bundle_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = bundle_paths(event.mimeData())
        for path in paths:
            self.gallery.open_bundle(path)
        if paths:
            event.acceptProposedAction()

    def show_notice(self, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> QMessageBox:
        """Tell the user something without blocking the event loop."""
        box = QMessageBox(icon, "MCP Desk", text, parent=self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setModal(False)
        box.show()
        return box

    def _reconnect_all(self) -> None:
        for name in self.bridge.host.connections:
            self.bridge.restart_server(name)

    def _send(self, text: str, refs: list[ResourceRef]) -> None:
        if self.chat.send(text, refs):
            self.composer.clear()

    def _restore_draft(self, text: str, refs: list[ResourceRef]) -> None:
        if not self.composer.editor.toPlainText():
            self.composer.editor.setPlainText(text)
        self.composer.attach(refs)

    # -- status ----------------------------------------------------------------------------

    def _update_counts(self, *_: str | ServerStatus) -> None:
        host = self.bridge.host
        self._servers_label.setText(f"Servers ready: {host.ready_count()}/{len(host.connections)}")

    def _update_model(self) -> None:
        model = self.chat.settings.model
        self._model_label.setText(f"Model: {model.model}" if model else "Model: not chosen (File → Settings)")

    def _on_context(self, prompt: SystemPrompt) -> None:
        self._catalog_tokens = prompt.catalog_tokens
        listed = f"{prompt.listed}/{prompt.total} listed" if prompt.summarized else f"{prompt.total} entries"
        self._meter["catalog"] = f"Context: catalog {prompt.catalog_tokens:,} tokens ({listed})"
        self._meter.pop("dump", None)
        self._context_label.setToolTip(
            f"System prompt {prompt.tokens:,} tokens; the full catalog would be {prompt.full_catalog_tokens:,}.\n"
            "Resource contents are never in the prompt: the model reads them on demand."
        )
        self._show_meter()

    def _on_dump(self, tokens: int) -> None:
        share = f" ({self._catalog_tokens / tokens:.1%})" if tokens else ""
        self._meter["dump"] = f"vs {tokens:,} if every resource were pasted{share}"
        self._show_meter()

    def _on_usage(self, usage: Usage) -> None:
        self._meter["usage"] = f"last call {usage.prompt_tokens:,} in / {usage.completion_tokens:,} out"
        self._show_meter()

    def _on_sampling(self, used: SamplingUsage) -> None:
        self._sampled = (self._sampled[0] + used.prompt_tokens, self._sampled[1] + used.completion_tokens)
        self._meter["sampling"] = f"servers' sampling {self._sampled[0]:,} in / {self._sampled[1]:,} out"
        self._show_meter()

    def _show_meter(self) -> None:
        order = ("catalog", "dump", "usage", "sampling")
        self._context_label.setText("  ·  ".join(self._meter[key] for key in order if key in self._meter))

    # -- closing ---------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        """First close: ignore it and let the app stop every server, then quit."""
        if self._closing:
            event.accept()
            return
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        event.ignore()
        self._closing = True
        self.statusBar().showMessage("Stopping servers…")
        self._on_close()


def _resume(tool: ToolCard) -> None:
    """A question of this call ended: the call runs on (unless it finished meanwhile)."""
    with contextlib.suppress(RuntimeError):  # the tool card may be gone (a new chat)
        if tool.state is CallState.ASKING:
            tool.set_state(CallState.RUNNING)
