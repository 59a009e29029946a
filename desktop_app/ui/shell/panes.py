"""The window's panes, filled into its frame once it is on screen, and wired to each other.

Importing this module loads the core, the MCP SDK, pydantic and every pane: it happens after the
window's first paint (`desktop_app.app.run_window`), never before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.app_settings import AppSettings
from desktop_app.core.apps.questions import AppPermissionQuestion, OpenLinkQuestion
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.chat.approval import AlwaysAllowRules, ApprovalRequest
from desktop_app.core.chat.conversations import ConversationNotFoundError, ConversationStore
from desktop_app.core.paths import data_dir
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.core.tasks.events import LateResult
from desktop_app.core.tasks.store import TASKS_FILENAME
from desktop_app.ui.apps.cards import OpenLinkCard, PermissionCard
from desktop_app.ui.apps.controller import AppViews
from desktop_app.ui.asks.card_asker import CardAsker
from desktop_app.ui.asks.cards import register_cards
from desktop_app.ui.asks.sign_in_card import SignInCard
from desktop_app.ui.chat.chat_actions import ChatActions
from desktop_app.ui.chat.chat_controller import ChatController
from desktop_app.ui.chat.first_steps_offer import FirstStepsOffer
from desktop_app.ui.chat.history_panel import HistoryPanel
from desktop_app.ui.chat.palette import CommandPalette, PaletteEntry
from desktop_app.ui.chat.prompt_form import PromptForm
from desktop_app.ui.conversation.approval_panel import ApprovalPanel
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from desktop_app.ui.conversation.pane import ConversationPane
from desktop_app.ui.conversation.taint_chip import TaintChip
from desktop_app.ui.gallery.drops import BundleDrops, choose_bundle
from desktop_app.ui.gallery.gallery_controller import GalleryController
from desktop_app.ui.ledger.ledger_actions import LedgerActions
from desktop_app.ui.servers.server_actions import ServerActions
from desktop_app.ui.servers.servers_panel import ServersPanel
from desktop_app.ui.shell.card_placement import CardPlacement
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.ui.shell.model_choice import ModelChoice
from desktop_app.ui.shell.settings_actions import SettingsActions
from desktop_app.ui.shell.status_meter import StatusMeter
from desktop_app.ui.shell.system_browser import SystemBrowser, ask_to_open
from desktop_app.ui.tasks.card_rows import TaskRows
from desktop_app.ui.tasks.feed import TaskFeed
from desktop_app.ui.tasks.tasks_panel import TasksPanel
from resources_ui.workspace import ResourceWorkspace

DEMO_STEPPED_ASIDE = (
    "The demo server stepped aside now that you have a server of your own; what you opened from it stays"
    " on screen, read-only. Remove all your servers to bring the demo back."
)
LATE_BUSY = "The result belongs to another chat: stop or finish this turn first, then Send to chat again."
LATE_DELETED = "The result's chat was deleted: it goes into this chat's message box instead."
LATE_DRAFT = "The message box holds a draft: send or clear it, then Send to chat again."
NO_MODEL = (
    "Choose a model to send your message to: a provider, a model and, if it needs one, an API key."
    " Your message stays in the composer; press Send again once the settings are saved."
)


def fill_window(
    window: MainWindow,
    bridge: CoreBridge,
    *,
    conversations: ConversationStore,
    rules: AlwaysAllowRules,
    settings: AppSettings,
    settings_path: Path,
) -> None:
    """Put every pane into `window`'s frame, wire them, and turn the menus on."""
    window.bridge = bridge

    # The conversation, in the middle.
    window.conversation = ConversationView()
    window.taint_chip = TaintChip()
    window.prompt_form = PromptForm(bridge)
    window.composer = Composer()
    window.conversation_pane = ConversationPane(
        window.conversation, window.prompt_form, window.composer, header=window.taint_chip
    )
    window.setCentralWidget(window.conversation_pane)
    window.command_palette = CommandPalette(window.conversation_pane)

    # Resources, servers and history on the left; the viewer on the right.
    window.resources = ResourceWorkspace(bridge, parent=window)
    window.servers_panel = ServersPanel(bridge)
    window.history = HistoryPanel(conversations)
    _fill(window.resources_dock, window.resources.browser)
    _fill(window.servers_dock, window.servers_panel)
    _fill(window.history_dock, window.history)
    _fill(window.viewer_dock, window.resources.detail)

    placement = CardPlacement(
        window, window.conversation, window.servers_panel, window.servers_dock, window.bring_to_front
    )
    window.asker = asker = CardAsker(placement.place, window)
    asker.register(SignInQuestion, lambda question: SignInCard(question, bridge))
    asker.register(ApprovalRequest, ApprovalPanel)
    register_cards(asker)
    asker.register(OpenLinkQuestion, OpenLinkCard)
    asker.register(AppPermissionQuestion, PermissionCard)
    bridge.host.questions.asker = asker
    bridge.host.sign_in.opener = SystemBrowser()

    window.chat = chat = ChatController(bridge, window.conversation, conversations, rules, settings, asker)
    window.ledger = LedgerActions(window, window.conversation, chat, bridge)  # what the model got; Export chat
    window.status_meter = StatusMeter(window.statusBar(), bridge, chat)
    window.settings_actions = settings_actions = SettingsActions(window, bridge, chat, settings_path)
    window.model_choice = ModelChoice(bridge, chat, window.conversation, window.composer, settings_actions)
    window.gallery = GalleryController(
        bridge, lambda: chat.settings.registry_url, settings_actions.open_settings, window, window.menu_actions
    )
    BundleDrops(window, window.gallery.open_bundle)  # .mcpb bundles dropped anywhere on the window
    servers = ServerActions(window, bridge)
    window.chat_actions = ChatActions(
        bridge,
        chat,
        window.conversation,
        window.composer,
        window.prompt_form,
        window.command_palette,
        window.resources,
        window.viewer_dock,
        palette_commands=[
            PaletteEntry("command", "Settings", "Model, API key, limits, approvals", settings_actions.open_settings),
            PaletteEntry(
                "command", "Switch model", "Choose the provider and model", settings_actions.open_settings, "model llm"
            ),
            PaletteEntry(
                "command", "Add server", "Connect a new MCP server", lambda: window.servers_panel.open_editor(None)
            ),
            PaletteEntry("command", "Find servers", "Search the MCP Registry and install", window.gallery.open_gallery),
        ],
    )
    FirstStepsOffer(bridge, window.conversation.first_steps, window.composer, window.prompt_form)
    # MCP App views: in their tool cards, or in the viewer (QtWebEngine loads with the first one).
    window.apps = AppViews(
        bridge,
        window.conversation,
        policy=chat.policy,
        chat=chat.for_apps,
        show_in_viewer=window.chat_actions.show_app,
        clear_viewer=window.resources.viewer.clear,
        parent=window,
    )
    chat.apps = window.apps
    window.resources.viewer.set_app_factory(window.apps.view_for_resource)
    window.resources.viewer.app_released.connect(window.apps.released)

    _tasks(window, bridge)
    _wire(window)
    _menus(window, servers)
    window.history.set_current(chat.conversation.id)
    window.set_filled()


def _tasks(window: MainWindow, bridge: CoreBridge) -> None:
    """Tasks kept across restarts, each one's row with its tool card, every server's in a dock beside History."""
    board = bridge.host.tasks
    board.open(data_dir() / TASKS_FILENAME, bridge.host.bus)
    feed = TaskFeed(board, window)
    TaskRows(feed, window.conversation, window)
    panel = TasksPanel(feed)
    _fill(window.tasks_dock, panel)
    panel.sig_send_to_chat.connect(lambda late: _send_late(window, feed, late))


def _send_late(window: MainWindow, feed: TaskFeed, late: LateResult) -> None:
    """A late result goes into its conversation's message box, for the user to send on to the model."""
    chat, editor = window.chat, window.composer.editor
    if late.record.conversation not in (None, chat.conversation.id):
        if chat.busy:
            window.statusBar().showMessage(LATE_BUSY, 8000)
            return
        try:
            chat.resume(late.record.conversation)
        except ConversationNotFoundError:
            window.statusBar().showMessage(LATE_DELETED, 8000)
    if editor.toPlainText().strip():
        window.statusBar().showMessage(LATE_DRAFT, 8000)
        return
    window.chat_actions.restore_draft(late.message(), [])
    feed.delivered(late)


def _fill(dock: QDockWidget, pane: QWidget) -> None:
    placeholder = dock.widget()
    dock.setWidget(pane)
    if placeholder is not None:
        placeholder.deleteLater()


def _wire(window: MainWindow) -> None:
    bridge, chat, composer, actions = window.bridge, window.chat, window.composer, window.chat_actions
    composer.send_requested.connect(actions.send)
    composer.cancel_requested.connect(chat.cancel)
    composer.palette_requested.connect(actions.open_palette)
    composer.open_requested.connect(actions.open_resource)
    composer.edit_requested.connect(actions.edit_last)
    chat.edit_requested.connect(actions.edit_last)
    window.asker.sig_card_opened.connect(chat.records.card_opened)
    window.asker.sig_card_opened.connect(lambda _card: window.conversation.turn_status.question_opened())
    window.asker.sig_card_closed.connect(lambda _card: window.conversation.turn_status.question_closed())
    chat.busy_changed.connect(composer.set_busy)
    chat.settings_needed.connect(lambda: window.settings_actions.open_settings(NO_MODEL))
    chat.draft_returned.connect(actions.restore_draft)
    chat.taint_changed.connect(window.taint_chip.set_reasons)
    chat.conversations_changed.connect(lambda: window.history.set_current(chat.conversation.id))
    window.resources.attach_requested.connect(actions.attach)
    for opened in (window.resources.browser.open_requested, window.resources.browser.template_requested):
        opened.connect(lambda *_: window.dock_fit.show_viewer())  # opening a resource opens the viewer
    window.resources.occupied_changed.connect(lambda shows: _viewer_room(window, shows))
    window.resources.web_link_requested.connect(lambda url: ask_to_open(window, url))
    window.conversation.web_link_requested.connect(lambda url: ask_to_open(window, url))
    window.conversation.open_resource.connect(lambda uri, server: actions.open_resource(ResourceRef(server, uri, uri)))
    window.conversation.open_content.connect(actions.show_content)
    window.prompt_form.submitted.connect(actions.use_prompt)
    window.history.resume_requested.connect(chat.resume)
    window.history.rename_requested.connect(chat.rename)
    window.history.delete_requested.connect(chat.delete)
    window.history.new_requested.connect(actions.new_chat)
    bridge.server_state_changed.connect(lambda name, status: _withdraw_if_stopped(window.asker, name, status))
    bridge.server_removed.connect(
        lambda name: window.asker.withdraw("The server was removed, so its question was withdrawn.", server=name)
    )
    bridge.fallback_stepped_aside.connect(lambda _names: window.conversation.add_message("info", DEMO_STEPPED_ASIDE))
    bridge.catalog_changed.connect(lambda *_: chat.meter.refresh())
    bridge.task_failed.connect(lambda message: window.statusBar().showMessage(message, 8000))
    window.status_meter.secrets_label.clicked.connect(
        lambda: bridge.spawn(window.settings_actions.encrypt_secrets(), "Encrypting secrets")
    )
    window.settings_actions.sig_applied.connect(window.status_meter.update_model)
    window.settings_actions.sig_applied.connect(window.gallery.settings_changed)
    window.gallery.sig_updates.connect(window.servers_panel.show_updates)
    window.servers_panel.update_requested.connect(window.gallery.open_update)


def _menus(window: MainWindow, servers: ServerActions) -> None:
    menu, actions = window.menu_actions, window.chat_actions
    _enable(menu.new_chat, actions.new_chat)
    _enable(menu.find_history, lambda: _find_in_history(window))
    _enable(menu.palette, actions.open_palette)
    _enable(menu.settings, window.settings_actions.open_settings)
    _enable(menu.export_chat, window.ledger.export_chat)
    _enable(menu.find_servers, window.gallery.open_gallery)
    _enable(menu.install_bundle, lambda: choose_bundle(window, window.gallery.open_bundle))
    if (bundles_off := window.bridge.host.managed.feature_refusal("bundles")) is not None:
        _grey(menu.install_bundle, str(bundles_off))
    _enable(menu.add_from_domain, window.gallery.domains.open_dialog)
    _enable(menu.add_server, lambda: window.servers_panel.open_editor(None))
    _enable(menu.reconnect_all, servers.reconnect_all)
    servers.fill_import_menu(menu.import_from)


def _viewer_room(window: MainWindow, shows: bool) -> None:
    """The viewer is on screen while it shows something; emptied, its room goes back to the chat."""
    if shows:
        window.dock_fit.show_viewer()
    else:
        window.dock_fit.hide_viewer()


def _find_in_history(window: MainWindow) -> None:
    window.history_dock.show()
    window.history_dock.raise_()
    window.history.focus_find()


def _withdraw_if_stopped(asker: CardAsker, name: str, status: ServerStatus) -> None:
    if status.state not in (ServerState.READY, ServerState.STARTING):
        asker.withdraw("The server stopped, so its question was withdrawn.", server=name)


def _enable(action: QAction, slot: Callable[[], object]) -> None:
    action.triggered.connect(lambda _=False: slot())
    action.setEnabled(True)


def _grey(action: QAction, why: str) -> None:
    """An entry the organisation's policy switched off: greyed, saying why on hover and in the status bar."""
    why = why[:1].upper() + why[1:]
    action.setEnabled(False)
    action.setToolTip(why)
    action.setStatusTip(why)
    for menu in action.associatedObjects():
        if isinstance(menu, QMenu):
            menu.setToolTipsVisible(True)
