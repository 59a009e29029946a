"""The server manager: every server's live state, what it offers, and its log.

The list on top; below it the selected server's details (`server_details`), the questions servers
ask outside a turn, and the Log and Tools tabs. A server the organisation's policy blocks is shown as
such, greyed, with the rule that blocked it; it cannot be restarted from here (it would be blocked
again), only edited or removed. The panel is narrow enough to sit beside the chat in a 1024 px window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.bridge import CoreBridge
from desktop_app.core.config_error import ConfigError
from desktop_app.core.events import LogEntry
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.server_config import ServerConfig
from desktop_app.core.server_status import ServerState
from desktop_app.qt_kit.action_icon import give_icon
from desktop_app.qt_kit.status_icons import state_icon
from desktop_app.qt_kit.tokens import UNBOUNDED
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.servers.sandbox_remedies import SandboxRemedies, configured
from desktop_app.ui.servers.server_details import ServerDetails, blocked_text
from desktop_app.ui.servers.server_editor import ServerEditor
from desktop_app.ui.servers.server_list import ServerList
from desktop_app.ui.servers.server_log_view import ServerLogView
from desktop_app.ui.servers.server_questions import ServerQuestions
from desktop_app.ui.servers.tools_list import ToolsList
from desktop_app.ui.widgets.confirm import confirm
from desktop_app.ui.widgets.empty_state import SERVERS_EMPTY, note_in_place_of
from desktop_app.ui.widgets.notice_box import show_notice

LOG_TAB: Final = 0
TOOLS_TAB: Final = 1


class ServersPanel(QWidget):
    """List on top, the selected server's details and log below."""

    update_requested = Signal(str)
    """The user wants to update this installed server to the registry's newer version."""

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._denials_seen: dict[str, int] = {}
        """Each server's `denials.version` the details last showed: they redraw only when it changes."""
        self._list = ServerList()
        self.details = ServerDetails()
        self._updates: dict[str, str] = {}
        self._add = QPushButton("Add server…")
        self._add.setObjectName("addServer")
        give_icon(self._add, "plus")
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

        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(8, 8, 8, 8)
        details_layout.addWidget(self.details)
        self._questions = ServerQuestions()  # asked outside a turn
        self._questions.sig_asking_changed.connect(self._refresh)
        details_layout.addWidget(self._questions, 6)
        details_layout.addWidget(self._tabs, 1)

        self._top = top = QWidget()
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
        self.details.sign_in.clicked.connect(lambda: self._for_selected(bridge.sign_in))
        self.details.cancel_sign_in.clicked.connect(lambda: self._for_selected(bridge.cancel_sign_in))
        self.details.sign_out.clicked.connect(lambda: self._for_selected(bridge.sign_out))
        self.details.restart.clicked.connect(self._on_restart)
        self.details.toggle.clicked.connect(self._on_toggle)
        self.details.edit.clicked.connect(self._on_edit)
        self.details.remove.clicked.connect(self._on_remove)
        self.details.update_button.clicked.connect(self._on_update)
        for button, icon in (
            (self.details.restart, "rotate-cw"),
            (self.details.toggle, "power"),
            (self.details.edit, "pencil"),
            (self.details.remove, "trash-2"),
        ):
            give_icon(button, icon)
        self._remedies = SandboxRemedies(self, bridge, self.selected, lambda: self.details.denial)
        self.details.allow.clicked.connect(self.offer_allow)
        self.details.run_once.clicked.connect(self._remedies.run_unconfined_once)
        self.details.run_always.clicked.connect(self._remedies.run_unconfined_always)
        self._add.clicked.connect(lambda: self.open_editor(None))
        bridge.server_state_changed.connect(lambda name, _status: self._refresh(name))
        bridge.server_removed.connect(lambda _name: self._sync_items())
        bridge.catalog_changed.connect(lambda name, _c: self._refresh(name))
        bridge.log_line.connect(self._on_log)
        for name in bridge.host.connections:
            self._item(name)
        self.empty = note_in_place_of(self._list, SERVERS_EMPTY, "serversEmpty")
        self._fit_list()
        self._show_selected()

    def add_card(self, card: AskCard[Any]) -> None:
        """Show a server's question outside a turn: above the log, its server selected and its row marked."""
        server = card.question.server
        self._questions.add(card)
        self._list.setCurrentItem(self._item(server))
        self._refresh(server)
        self._questions.scroll_to_top()
        self._make_room()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_list()  # the rows' height in the style and font the panel is shown in

    def _fit_list(self) -> None:
        """The server list as tall as its rows, its Add button under it: the details below get the rest."""
        if not self._list.count():  # the note that says how to add one stands in its place, its own height
            self._list.setMaximumHeight(UNBOUNDED)
            self._top.setMaximumHeight(UNBOUNDED)
            return
        height = self._list.rows_height()
        self._list.setMaximumHeight(height)
        self._top.setMaximumHeight(height + self._add_row_height)

    def _make_room(self) -> None:
        """Shrink the server list to its rows so a question or the tools get the height (never grows it)."""
        top, rest = self._splitter.sizes()
        needed = self._list.rows_height() + self._add_row_height
        if top > needed:
            self._splitter.setSizes([needed, rest + top - needed])

    def show_updates(self, updates: dict[str, str]) -> None:
        """Mark installed servers that have a newer registry version (entry name -> version)."""
        self._updates = dict(updates)
        for name in self._list.names():
            self._refresh(name)

    def selected(self) -> str | None:
        return self._list.selected()

    def _item(self, name: str) -> QListWidgetItem:
        item, added = self._list.row_of(name)
        if added:
            self._fit_list()
            self._refresh(name)
        return item

    def _sync_items(self) -> None:
        """Drop rows of servers the host no longer has (removed or renamed)."""
        self._list.keep_only(set(self._bridge.host.connections))
        self._fit_list()

    def _refresh(self, name: str) -> None:
        connection = self._bridge.host.connections.get(name)
        if connection is None:
            self._sync_items()
            return
        item = self._item(name)
        status = connection.status
        item.setIcon(state_icon(status.state))
        self._fit_list()  # the icon may make the row taller
        badge = f"  ·  update {self._updates[name]}" if name in self._updates else ""
        asking = self._questions.asking(name)
        blocked = self._blocked(name)
        state = "blocked by your organisation" if blocked is not None else status.state.value
        sandboxed = connection.config.sandbox_enabled or connection.confinement.required is not None
        confined = f"  ·  {connection.confinement.protection(connection.config)}" if sandboxed else ""
        item.setText(f"{name}  —  {state}{confined}{badge}" + ("  ·  asks you something" if asking else ""))
        font = item.font()
        font.setBold(asking)
        font.setItalic(blocked is not None)
        item.setFont(font)
        role = QPalette.ColorGroup.Disabled if blocked is not None else QPalette.ColorGroup.Active
        item.setForeground(self._list.palette().brush(role, QPalette.ColorRole.Text))
        item.setToolTip(blocked_text(blocked) if blocked is not None else status.explained())
        if name == self.selected():
            self._show_selected()

    def _show_selected(self) -> None:
        self._show_details()
        self._show_tools()

    def _show_details(self) -> None:
        name = self.selected()
        connection = None if name is None else self._bridge.host.connections.get(name)
        if connection is None:
            self.details.show_server(None)
            self._log_view.show_entries(())
            return
        in_file = configured(self._bridge, connection.name) is not None
        self.details.show_server(
            connection,
            blocked=self._blocked(connection.name),
            trusted=self._trusted(connection.name),
            configured=in_file,
            newer=self._updates.get(connection.name) if in_file else None,
        )
        self._log_view.show_entries(connection.log)

    def _show_tools(self) -> None:
        """The selected server's full listing; its tools can be switched off once it is in servers.json."""
        name = self.selected()
        connection = None if name is None else self._bridge.host.connections.get(name)
        if connection is None:
            self._tools.show_tools(None, (), editable=False, trusted=False)
            self._tabs.setTabText(TOOLS_TAB, "Tools")
            return
        entry = configured(self._bridge, connection.name)
        disabled = entry.disabled_tools if entry is not None else connection.config.disabled_tools
        tools = connection.catalog.tools if connection.catalog is not None else None
        trusted = self._trusted(connection.name)
        self._tools.show_tools(tools, disabled, editable=entry is not None, trusted=trusted)
        self._tabs.setTabText(TOOLS_TAB, "Tools" if tools is None else f"Tools ({len(tools)})")

    def _blocked(self, name: str) -> Refusal | None:
        """The policy's refusal when it is why the server is not running."""
        connection = self._bridge.host.connections.get(name)
        if connection is None or connection.status.state is not ServerState.FAILED:
            return None
        return self._bridge.host.blocked.get(name)

    def _on_tool_switched(self, tool: str, on: bool) -> None:
        """Save the switch, then let the host leave what is off out of what the model is offered."""
        name, store = self.selected(), self._bridge.store
        if name is None or store is None or configured(self._bridge, name) is None:
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

    def _on_log(self, name: str, entry: LogEntry) -> None:
        if name != self.selected():
            return
        self._log_view.append(entry)
        self.details.refresh_claim()  # a changed claim writes a log line
        connection = self._bridge.host.connections.get(name)
        if connection is not None and self._denials_seen.get(name) != connection.denials.version:
            self._denials_seen[name] = connection.denials.version
            self._show_details()  # the sandbox refused something new (a log line says so)

    def offer_allow(self) -> QMessageBox | None:
        """Ask, without blocking, to allow what the sandbox refused (see `SandboxRemedies`)."""
        return self._remedies.offer_allow()

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
        editor = ServerEditor(self._bridge.secrets, config, self, managed=self._bridge.host.managed)
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
