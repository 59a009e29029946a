"""The server manager: every server's live state, what it offers, and its log.

A server the organisation's policy blocks is shown as such, greyed, with the rule that blocked it;
it cannot be restarted from here (it would be blocked again), only edited or removed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.bridge import CoreBridge
from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.config_error import ConfigError
from desktop_app.core.events import LogEntry
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.core.terminal_text import printable
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.confirm import confirm
from desktop_app.ui.instructions_note import InstructionsNote
from desktop_app.ui.notice_box import show_notice
from desktop_app.ui.plain_text import set_plain_tooltip
from desktop_app.ui.plain_tooltips import PlainToolTips
from desktop_app.ui.server_editor import ServerEditor
from desktop_app.ui.server_log_view import ServerLogView
from desktop_app.ui.tools_list import ToolsList
from resources_ui.status_icons import state_icon

_NAME_ROLE = Qt.ItemDataRole.UserRole
CARD_LINGER_MS = 4000
LOG_TAB: Final = 0
TOOLS_TAB: Final = 1


def _counts(catalog: ServerCatalog | None, disabled: Collection[str]) -> str:
    if catalog is None:
        return "nothing listed yet"
    parts = [
        (len(catalog.resources), "resource"),
        (len(catalog.templates), "template"),
        (len(catalog.prompts), "prompt"),
        (len(catalog.tools), "tool"),
    ]
    text = " · ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in parts)
    off = sum(tool.name in disabled for tool in catalog.tools)
    return text + (f" ({off} switched off)" if off else "")


def _blocked_text(refusal: Refusal) -> str:
    text = str(refusal)
    return f"{text[:1].upper()}{text[1:]}. MCP Desk does not start it: ask your administrator if you need it."


class ServersPanel(QWidget):
    """List on top, the selected server's details and log below."""

    update_requested = Signal(str)
    """The user wants to update this installed server to the registry's newer version."""

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._asking: dict[str, int] = {}
        """Open questions per server, shown on its row."""
        self._list = QListWidget()
        self._list.setObjectName("serverList")
        PlainToolTips(self._list)  # a row's tooltip quotes the server (why it failed)
        self._title = QLabel()
        self._title.setObjectName("serverTitle")
        # A server's name, version and stderr are text: never guessed to be markup and drawn.
        self._title.setTextFormat(Qt.TextFormat.PlainText)
        title_font = self._title.font()
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setBold(True)
        self._title.setFont(title_font)
        self._state = QLabel()
        self._state.setWordWrap(True)
        self._state.setTextFormat(Qt.TextFormat.PlainText)
        self._state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._offer = QLabel()
        self._instructions = InstructionsNote()
        self._sign_in = QPushButton("Sign in")
        self._sign_in.setObjectName("signIn")
        self._sign_in.setToolTip("Open the server's sign-in page in your browser")
        self._cancel_sign_in = QPushButton("Cancel sign-in")
        self._sign_out = QPushButton("Sign out")
        self._sign_out.setToolTip("Revoke the sign-in where the server allows it, and forget it here")
        self._restart = QPushButton("Restart")
        self._toggle = QPushButton("Disable")
        self._edit = QPushButton("Edit…")
        self._remove = QPushButton("Remove")
        self._update = QPushButton()
        self._update.setObjectName("updateServer")
        self._update_row = QWidget()
        update_layout = QHBoxLayout(self._update_row)
        update_layout.setContentsMargins(0, 0, 0, 0)
        update_layout.addWidget(QLabel("A newer version is in the registry."))
        update_layout.addWidget(self._update)
        update_layout.addStretch(1)
        self._update_row.hide()
        self._updates: dict[str, str] = {}
        self._add = QPushButton("Add server…")
        self._add.setObjectName("addServer")
        self._log_view = ServerLogView()
        self._log = self._log_view.text
        self._level = self._log_view.level
        self._tools = ToolsList()
        self._tools.sig_switched.connect(self._on_tool_switched)
        self._tabs = QTabWidget()
        self._tabs.setObjectName("serverTabs")
        self._tabs.setDocumentMode(True)
        self._tabs.insertTab(LOG_TAB, self._log_view, "Log")
        self._tabs.insertTab(TOOLS_TAB, self._tools, "Tools")
        self._tabs.currentChanged.connect(lambda index: self._make_room() if index == TOOLS_TAB else None)

        buttons = QHBoxLayout()
        for button in (self._restart, self._toggle, self._edit, self._remove):
            buttons.addWidget(button)
        buttons.addStretch(1)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(8, 8, 8, 8)
        details_layout.addWidget(self._title)
        details_layout.addWidget(self._state)
        details_layout.addWidget(self._offer)
        details_layout.addWidget(self._instructions)
        # Signing in (or out) gets a row of its own, shown only when there is something to do.
        self._sign_in_bar = QWidget()
        sign_in_row = QHBoxLayout(self._sign_in_bar)
        sign_in_row.setContentsMargins(0, 0, 0, 0)
        for button in (self._sign_in, self._cancel_sign_in, self._sign_out):
            sign_in_row.addWidget(button)
        sign_in_row.addStretch(1)
        details_layout.addWidget(self._sign_in_bar)
        details_layout.addLayout(buttons)
        details_layout.addWidget(self._update_row)
        # Questions asked outside a turn; a long form scrolls here instead of squeezing the log away.
        cards = QWidget()
        self._cards = QVBoxLayout(cards)
        self._cards.setContentsMargins(0, 0, 0, 0)
        self._cards.addStretch(1)  # cards keep their own height; spare room stays below them
        self._cards_area = QScrollArea()
        self._cards_area.setObjectName("serverQuestions")
        self._cards_area.setWidget(cards)
        self._cards_area.setWidgetResizable(True)
        self._cards_area.setFrameShape(QFrame.Shape.NoFrame)
        self._cards_area.hide()
        details_layout.addWidget(self._cards_area, 6)
        details_layout.addWidget(self._tabs, 1)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self._list)
        add_row = QHBoxLayout()
        add_row.setContentsMargins(4, 0, 4, 4)
        add_row.addWidget(self._add)
        add_row.addStretch(1)
        top_layout.addLayout(add_row)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(details)
        splitter.setStretchFactor(1, 3)
        self._splitter = splitter
        self._add_row_height = self._add.sizeHint().height() + 8
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self._list.currentItemChanged.connect(lambda *_: self._show_selected())
        self._sign_in.clicked.connect(lambda: self._for_selected(bridge.sign_in))
        self._cancel_sign_in.clicked.connect(lambda: self._for_selected(bridge.cancel_sign_in))
        self._sign_out.clicked.connect(lambda: self._for_selected(bridge.sign_out))
        self._restart.clicked.connect(self._on_restart)
        self._toggle.clicked.connect(self._on_toggle)
        self._edit.clicked.connect(self._on_edit)
        self._remove.clicked.connect(self._on_remove)
        self._update.clicked.connect(self._on_update)
        self._add.clicked.connect(lambda: self.open_editor(None))
        bridge.server_state_changed.connect(self._on_state)
        bridge.server_removed.connect(lambda _name: self._sync_items())
        bridge.catalog_changed.connect(lambda name, _c: self._refresh(name))
        bridge.log_line.connect(self._on_log)
        for name in bridge.host.connections:
            self._item(name)
        self._show_selected()

    def add_card(self, card: AskCard[Any]) -> None:
        """Show a server's question outside a turn: above the log, its server selected and its row marked."""
        server = card.question.server
        self._cards.insertWidget(self._cards.count() - 1, card)
        self._cards_area.show()
        self._asking[server] = self._asking.get(server, 0) + 1
        self._list.setCurrentItem(self._item(server))
        self._refresh(server)
        self._cards_area.verticalScrollBar().setValue(0)
        self._make_room()
        card.sig_answered.connect(lambda _reply: self._retire(card))
        card.sig_withdrawn.connect(lambda _why: self._retire(card))

    def _make_room(self) -> None:
        """Shrink the server list to its rows so a question or the tools get the height (never grows it)."""
        top, rest = self._splitter.sizes()
        rows = max(self._list.count(), 3)
        needed = self._list.sizeHintForRow(0) * rows + 2 * self._list.frameWidth() + self._add_row_height
        if top > needed:
            self._splitter.setSizes([needed, rest + top - needed])

    def _retire(self, card: AskCard[Any]) -> None:
        server = card.question.server
        self._asking[server] = max(self._asking.get(server, 0) - 1, 0)
        self._refresh(server)

        def remove() -> None:
            card.deleteLater()
            if self._cards.count() <= 2:  # this card (until deleted) and the stretch
                self._cards_area.hide()

        # The outcome stays readable for a moment, then the card leaves the panel.
        QTimer.singleShot(CARD_LINGER_MS, remove)

    def show_updates(self, updates: dict[str, str]) -> None:
        """Mark installed servers that have a newer registry version (entry name -> version)."""
        self._updates = dict(updates)
        for row in range(self._list.count()):
            self._refresh(str(self._list.item(row).data(_NAME_ROLE)))

    def selected(self) -> str | None:
        item = self._list.currentItem()
        return None if item is None else str(item.data(_NAME_ROLE))

    def _item(self, name: str) -> QListWidgetItem:
        for row in range(self._list.count()):
            item = self._list.item(row)
            if item.data(_NAME_ROLE) == name:
                return item
        item = QListWidgetItem(name)
        item.setData(_NAME_ROLE, name)
        self._list.addItem(item)
        if self._list.currentItem() is None:
            self._list.setCurrentItem(item)  # servers usually arrive after the panel: show the first
        self._refresh(name)
        return item

    def _sync_items(self) -> None:
        """Drop rows of servers the host no longer has (removed or renamed)."""
        names = set(self._bridge.host.connections)
        for row in reversed(range(self._list.count())):
            if self._list.item(row).data(_NAME_ROLE) not in names:
                self._list.takeItem(row)

    def _refresh(self, name: str) -> None:
        connection = self._bridge.host.connections.get(name)
        if connection is None:
            self._sync_items()
            return
        item = self._item(name)
        status = connection.status
        item.setIcon(state_icon(status.state))
        badge = f"  ·  update {self._updates[name]}" if name in self._updates else ""
        asking = self._asking.get(name, 0) > 0
        blocked = self._blocked(name)
        state = "blocked by your organisation" if blocked is not None else status.state.value
        item.setText(f"{name}  —  {state}{badge}" + ("  ·  asks you something" if asking else ""))
        font = item.font()
        font.setBold(asking)
        font.setItalic(blocked is not None)
        item.setFont(font)
        role = QPalette.ColorGroup.Disabled if blocked is not None else QPalette.ColorGroup.Active
        item.setForeground(self._list.palette().brush(role, QPalette.ColorRole.Text))
        item.setToolTip(_blocked_text(blocked) if blocked is not None else status.explained())
        if name == self.selected():
            self._show_selected()

    def _show_selected(self) -> None:
        self._show_details()
        self._show_tools()

    def _show_details(self) -> None:
        name = self.selected()
        connection = None if name is None else self._bridge.host.connections.get(name)
        for button in (self._restart, self._toggle, self._edit, self._remove):
            button.setEnabled(connection is not None)
        state = connection.status.state if connection is not None else None
        self._sign_in.setVisible(state is ServerState.NEEDS_SIGN_IN)
        self._cancel_sign_in.setVisible(state is ServerState.SIGNING_IN)
        self._sign_out.setVisible(
            connection is not None and state is not ServerState.SIGNING_IN and connection.auth.signed_in
        )
        self._sign_in_bar.setVisible(
            any(not b.isHidden() for b in (self._sign_in, self._cancel_sign_in, self._sign_out))
        )
        if connection is None:
            self._update_row.hide()
            self._title.setText("No server selected")
            self._state.clear()
            self._offer.clear()
            self._instructions.show_for(None, False)
            self._log_view.show_entries(())
            return
        status: ServerStatus = connection.status
        info = connection.catalog.server_info if connection.catalog else None
        version = f"  {info.name} {info.version}" if info else ""
        self._title.setText(printable(f"{connection.name}{version}"))
        blocked = self._blocked(connection.name)
        if blocked is not None:  # the rule in a line; what it says in full on hover and in the log
            self._state.setText(f"Blocked by your organisation's policy: {blocked.field}")
        else:
            self._state.setText(printable(status.explained()))
        set_plain_tooltip(self._state, _blocked_text(blocked) if blocked is not None else "")
        self._restart.setEnabled(blocked is None)
        set_plain_tooltip(self._restart, _blocked_text(blocked) if blocked is not None else "")
        self._offer.setText(_counts(connection.catalog, connection.config.disabled_tools))
        self._instructions.show_for(connection.catalog, self._trusted(connection.name))
        self._toggle.setText("Enable" if status.state is ServerState.DISABLED else "Disable")
        configured = self._bridge.store is not None and connection.name in self._bridge.store.servers
        self._edit.setEnabled(configured)
        self._remove.setEnabled(configured)
        newer = self._updates.get(connection.name) if configured else None
        self._update.setText(f"Update to {newer}…" if newer else "")
        self._update_row.setVisible(newer is not None)
        self._log_view.show_entries(connection.log)

    def _show_tools(self) -> None:
        """The selected server's full listing; its tools can be switched off once it is in servers.json."""
        name = self.selected()
        connection = None if name is None else self._bridge.host.connections.get(name)
        if connection is None:
            self._tools.show_tools(None, (), editable=False, trusted=False)
            self._tabs.setTabText(TOOLS_TAB, "Tools")
            return
        configured = self._configured(connection.name)
        disabled = configured.disabled_tools if configured is not None else connection.config.disabled_tools
        tools = connection.catalog.tools if connection.catalog is not None else None
        trusted = self._trusted(connection.name)
        self._tools.show_tools(tools, disabled, editable=configured is not None, trusted=trusted)
        self._tabs.setTabText(TOOLS_TAB, "Tools" if tools is None else f"Tools ({len(tools)})")

    def _blocked(self, name: str) -> Refusal | None:
        """The policy's refusal when it is why the server is not running."""
        connection = self._bridge.host.connections.get(name)
        if connection is None or connection.status.state is not ServerState.FAILED:
            return None
        return self._bridge.host.blocked.get(name)

    def _configured(self, name: str) -> ServerConfig | None:
        """The server's entry in servers.json (None for the embedded demo, which is not in it)."""
        return self._bridge.store.servers.get(name) if self._bridge.store is not None else None

    def _on_tool_switched(self, tool: str, on: bool) -> None:
        """Save the switch, then let the host leave what is off out of what the model is offered."""
        name, store = self.selected(), self._bridge.store
        if name is None or store is None or self._configured(name) is None:
            return
        try:
            disabled = store.switch_tool(name, tool, on).disabled_tools
        except ConfigError as exc:
            show_notice(self, f"The tool could not be switched {'on' if on else 'off'}: {exc}")
            self._show_tools()  # back to what is saved
            return
        self._bridge.host.set_disabled_tools(name, disabled)

    def _trusted(self, name: str) -> bool:
        """The user's trust as saved (the host takes it up a moment later), else as the host has it."""
        config = self._bridge.store.servers.get(name) if self._bridge.store is not None else None
        return config.trusted if config is not None else self._bridge.host.trust(name).trusted

    def _on_state(self, name: str, _status: ServerStatus) -> None:
        self._refresh(name)

    def _on_log(self, name: str, entry: LogEntry) -> None:
        if name == self.selected():
            self._log_view.append(entry)

    def _for_selected(self, action: Callable[[str], None]) -> None:
        if (name := self.selected()) is not None:
            action(name)

    def _on_restart(self) -> None:
        if (name := self.selected()) is not None:
            self._bridge.restart_server(name)

    def _on_update(self) -> None:
        if (name := self.selected()) is not None:
            self.update_requested.emit(name)

    def _on_toggle(self) -> None:
        name = self.selected()
        if name is None:
            return
        disabled = self._bridge.host.connection(name).status.state is ServerState.DISABLED
        self._bridge.set_server_enabled(name, disabled)

    def open_editor(self, name: str | None) -> ServerEditor:
        """Open the add/edit dialog without blocking; saving applies the change at once."""
        config = None
        if name is not None and self._bridge.store is not None:
            config = self._bridge.store.servers.get(name)
        editor = ServerEditor(self._bridge.secrets, config, self)
        editor.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def save(new: ServerConfig, previous: str | None) -> None:
            try:
                self._bridge.save_server(new, previous)
            except ConfigError as exc:
                editor.show_error(str(exc))
                return
            editor.accept()
            self._show_selected()  # trust alone changes no state, yet it changes what the model gets

        editor.saved.connect(save)
        editor.open()
        return editor

    def _on_edit(self) -> None:
        if (name := self.selected()) is not None:
            self.open_editor(name)

    def _on_remove(self) -> None:
        name = self.selected()
        if name is None:
            return
        config = self._bridge.store.servers.get(name) if self._bridge.store else None
        files = " Its bundle's files are deleted too." if config is not None and config.origin.get("bundle") else ""
        confirm(
            self,
            "Remove server",
            f"Remove '{name}' from your servers? Its stored secrets are kept.{files}",
            lambda: self._bridge.remove_server(name),
        )
