"""Settings' Approval rules group: what runs without asking, each rule revocable.

Three kinds are listed: always-allow per tool, a trusted server's read-only tools run unasked, and a
server let to use the model (sampling). While the organisation's policy pauses them they stay listed,
and say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGroupBox, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.asks.service import SamplingGrants
from desktop_app.core.chat.approval import AlwaysAllowRules
from desktop_app.core.policy.in_force import PolicyInForce
from desktop_app.core.server_config import ServerConfig
from desktop_app.qt_kit.theme import muted


class ApprovalRules(QGroupBox):
    """The rules in force, with Revoke; a server's rule is revoked by the window (`server_rule_revoked`)."""

    server_rule_revoked = Signal(str)  # server name: stop running its read-only tools without asking

    def __init__(
        self,
        rules: AlwaysAllowRules | None,
        servers: Mapping[str, ServerConfig],
        grants: SamplingGrants | None,
        managed: PolicyInForce,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Approval rules", parent)
        self._rules = rules
        self._servers = dict(servers)
        self._grants = grants
        self.rules_list = QListWidget()
        self.rules_list.setMaximumHeight(120)
        self.revoke = QPushButton("Revoke")
        self.revoke.clicked.connect(self._revoke)
        self.rules_list.currentItemChanged.connect(lambda item, _old: self.revoke.setEnabled(item is not None))
        note = QLabel(
            "Calls these rules cover run without asking. While untrusted content is in a chat, the rules"
            " pause there for tools that are not read-only. Trust a server in its editor (Servers panel)."
        )
        note.setWordWrap(True)
        muted(note)
        paused = managed.every_call() or managed.feature_refusal("alwaysAllow")
        if paused is not None:  # the rules stay (revocable) but do not apply: say so where they are listed
            note.setText(f"These rules are not applied now: {paused}. {note.text()}")
        layout = QVBoxLayout(self)
        layout.addWidget(self.rules_list)
        layout.addWidget(note)
        layout.addWidget(self.revoke, 0, Qt.AlignmentFlag.AlignLeft)

    def fill(self) -> None:
        """Every rule: always-allow per tool, then each trusted server whose read-only tools run unasked."""
        self.rules_list.clear()
        for server, tool in self._rules.rules() if self._rules else []:
            item = QListWidgetItem(f"Always allow {tool} on {server}")
            item.setData(Qt.ItemDataRole.UserRole, ("tool", server, tool))
            self.rules_list.addItem(item)
        for name, config in sorted(self._servers.items()):
            if not config.auto_approve_read_only:
                continue
            paused = "" if config.trusted else " (inactive: the server is not trusted)"
            item = QListWidgetItem(f"Run read-only tools of {name} without asking{paused}")
            item.setData(Qt.ItemDataRole.UserRole, ("server", name, ""))
            self.rules_list.addItem(item)
        for server in self._grants.always() if self._grants else []:
            item = QListWidgetItem(f"Let {server} use your model (sampling) without asking")
            item.setData(Qt.ItemDataRole.UserRole, ("sampling", server, ""))
            self.rules_list.addItem(item)
        if self.rules_list.count() == 0:
            empty = QListWidgetItem("No rules yet: every tool call asks you.")
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.rules_list.addItem(empty)
        self.revoke.setEnabled(False)

    def _revoke(self) -> None:
        item = self.rules_list.currentItem()
        if item is None or not item.data(Qt.ItemDataRole.UserRole):
            return
        kind, server, tool = item.data(Qt.ItemDataRole.UserRole)
        if kind == "tool" and self._rules is not None:
            self._rules.revoke(server, tool)
        elif kind == "sampling" and self._grants is not None:
            self._grants.revoke(server)
        elif kind == "server" and server in self._servers:
            self._servers[server] = replace(self._servers[server], auto_approve_read_only=False)
            self.server_rule_revoked.emit(server)
        self.fill()
