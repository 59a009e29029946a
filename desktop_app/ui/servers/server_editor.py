"""Add or edit one server: stdio (command, args, env, cwd) or HTTP/SSE (URL, headers).

Values marked secret go to the secret store and the config keeps only `${secret:NAME}`.
The two ways to reach a server are pages of their own (`server_editor_pages`).
An entry the organisation's policy would block is saved only when the user saves again after being
told which rule blocks it (it is kept, but never started while the policy stands).
The dialog is non-modal (`open()`), so the event loop and every server keep running.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.config_error import ConfigError
from desktop_app.core.config_file import parse_pasted
from desktop_app.core.expansion import secret_placeholder
from desktop_app.core.policy.in_force import PolicyInForce, policy_in_force
from desktop_app.core.policy.refusal import FIXED
from desktop_app.core.sandbox.probe import SandboxSupport
from desktop_app.core.secret_store import SecretStore
from desktop_app.core.server_config import (
    DEFAULT_TIMEOUT_S,
    LOG_LEVELS,
    PROTOCOL_MODES,
    OAuthSettings,
    ServerConfig,
    TransportKind,
)
from desktop_app.ui.asks.roots_editor import RootsEditor
from desktop_app.ui.servers.key_value_table import KeyValueTable
from desktop_app.ui.servers.sandbox_section import SandboxSection, probe_in_background
from desktop_app.ui.servers.server_editor_pages import AddressPage, CommandPage
from desktop_app.ui.servers.server_editor_parts import TrustSection, store_note
from desktop_app.ui.widgets.style import error_label


def secret_name_for(server: str, key: str) -> str:
    """A stable secret name for one field of one server, e.g. GITHUB_AUTHORIZATION."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{server}_{key}").strip("_").upper() or "SECRET"


class ServerEditor(QDialog):
    """Emits `saved(config, previous_name)` once the form is valid and its secrets are stored."""

    saved = Signal(object, object)  # ServerConfig, str | None

    def __init__(
        self,
        secrets: SecretStore | None,
        config: ServerConfig | None = None,
        parent: QWidget | None = None,
        *,
        managed: PolicyInForce | None = None,
        support: SandboxSupport | None = None,
    ) -> None:
        """`managed` is the organisation's policy (by default the one in force): what it would block is said.
        `support` is what this system can sandbox with (by default probed once per process)."""
        super().__init__(parent)
        self._managed = policy_in_force() if managed is None else managed
        self._warned: ServerConfig | None = None
        """The entry the user was told the policy blocks: saving it again keeps it."""
        self.setWindowTitle("Edit server" if config else "Add server")
        self.setObjectName("serverEditor")
        self._secrets = secrets
        self._previous = config.name if config else None
        self._origin = dict(config.origin) if config else {}  # kept: updates and uninstall need it
        self._oauth: OAuthSettings | None = None
        self._disabled_tools: tuple[str, ...] = ()
        screen = self.screen().availableGeometry()
        self.resize(min(660, screen.width() - 40), min(860, screen.height() - 60))

        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. github")
        self.transport = QComboBox()
        self.transport.addItem("Local command (stdio)", TransportKind.STDIO.value)
        self.transport.addItem("Streamable HTTP", TransportKind.HTTP.value)
        self.transport.addItem("Server-sent events (SSE)", TransportKind.SSE.value)

        where = secrets.backend.where if secrets is not None else "in the secret store"
        self.local, self.remote = CommandPage(where), AddressPage(where)
        self.command, self.args, self.cwd = self.local.command, self.local.args, self.local.cwd
        self.env, self.env_warning = self.local.env, self.local.env_warning
        self.url, self.headers = self.remote.url, self.remote.headers
        self.pages = QStackedWidget()
        self.pages.addWidget(self.local)
        self.pages.addWidget(self.remote)

        self.protocol = QComboBox()
        for mode in PROTOCOL_MODES:
            self.protocol.addItem(mode)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(DEFAULT_TIMEOUT_S)
        self.disabled = QCheckBox("Keep configured but don't start")
        trust = TrustSection()
        self.trusted, self.auto_read_only = trust.trusted, trust.auto_read_only
        self.sandbox = SandboxSection(support)
        if support is None:
            probe_in_background(self.sandbox.show_support)
        if (required := self._managed.sandbox_required()) is not None:
            self.sandbox.require(f"{FIXED}: {required.what} ({required.field})")
        self.log_level = QComboBox()
        self.log_level.addItem("Default (info)", None)
        for level in LOG_LEVELS:
            self.log_level.addItem(level, level)
        self.log_level.setToolTip("The least severe log message the server should send")
        self.default_roots = QCheckBox("Use the default roots from Settings")
        self.roots = RootsEditor()
        self.default_roots.toggled.connect(lambda on: self.roots.setEnabled(not on))
        self.default_roots.setChecked(True)

        self.paste = QPlainTextEdit()
        self.paste.setPlaceholderText('Paste a Claude Desktop snippet: {"name": {"command": …}} then "Fill in"')
        self.paste.setMaximumHeight(80)
        fill = QPushButton("Fill in from JSON")
        fill.clicked.connect(self._fill_from_json)

        self.error = error_label()
        self.error.setObjectName("editorError")
        self.store_note = store_note(secrets)

        top = QFormLayout()
        top.addRow("Name", self.name)
        top.addRow("Connection", self.transport)
        advanced = QFormLayout()
        advanced.addRow("Protocol", self.protocol)
        advanced.addRow("Request timeout", self.timeout)
        advanced.addRow("Log level", self.log_level)
        advanced.addRow("Roots", self.default_roots)
        advanced.addRow("", self.roots)
        advanced.addRow("", self.disabled)
        advanced.addRow("Trust", trust)
        advanced.addRow("Sandbox", self.sandbox)
        self._advanced = advanced
        paste_row = QHBoxLayout()
        paste_row.addWidget(self.paste, 1)
        paste_row.addWidget(fill)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)

        form = QWidget()
        form_layout = QVBoxLayout(form)
        form_layout.setContentsMargins(0, 0, 0, 0)
        form_layout.addLayout(paste_row)
        form_layout.addLayout(top)
        form_layout.addWidget(self.pages, 1)
        form_layout.addLayout(advanced)
        form_layout.addWidget(self.store_note)
        # On a small screen the form scrolls; the error and the buttons stay in sight.
        self.scroller = QScrollArea()
        self.scroller.setWidget(form)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroller, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

        self.transport.currentIndexChanged.connect(self._on_transport)
        if config is not None:
            self.load(config)

    def _on_transport(self) -> None:
        local = self._kind() is TransportKind.STDIO
        self.pages.setCurrentIndex(0 if local else 1)
        self._advanced.setRowVisible(self.sandbox, local)  # a remote server runs elsewhere: nothing here confines it

    def _kind(self) -> TransportKind:
        return TransportKind(self.transport.currentData())

    def load(self, config: ServerConfig) -> None:
        self._oauth = config.oauth  # sign-in settings have no fields here; kept as written
        self._disabled_tools = config.disabled_tools  # switched on and off in the Servers panel; kept
        self.sandbox.load(config.sandbox_enabled, config.sandbox)
        self.name.setText(config.name)
        self.transport.setCurrentIndex(self.transport.findData(config.transport.value))
        self.local.load(config)
        self.remote.load(config)
        self.protocol.setCurrentText(config.protocol)
        self.timeout.setValue(config.timeout)
        self.disabled.setChecked(config.disabled)
        self.trusted.setChecked(config.trusted)
        self.auto_read_only.setChecked(config.auto_approve_read_only)
        self.auto_read_only.setEnabled(config.trusted)
        self.log_level.setCurrentIndex(self.log_level.findData(config.log_level))
        self.default_roots.setChecked(config.roots is None)
        self.roots.set_entries(config.roots or ())
        self._on_transport()

    def _fill_from_json(self) -> None:
        try:
            servers = parse_pasted(self.paste.toPlainText())
        except ConfigError as exc:
            self.error.setText(str(exc))
            return
        if not servers:
            self.error.setText("The JSON holds no server.")
            return
        self.error.clear()
        self.load(next(iter(servers.values())))

    def build(self) -> ServerConfig:
        """The config the form describes; stores ticked secrets. Raises ValueError when incomplete."""
        name = self.name.text().strip()
        if not name:
            raise ValueError("Give the server a name.")
        kind = self._kind()
        trusted = self.trusted.isChecked()
        common = {
            "protocol": self.protocol.currentText(),
            "timeout": self.timeout.value(),
            "disabled": self.disabled.isChecked(),
            "origin": self._origin,
            "trusted": trusted,
            "auto_approve_read_only": trusted and self.auto_read_only.isChecked(),
            "log_level": self.log_level.currentData(),
            "roots": None if self.default_roots.isChecked() else self.roots.entries(),
            "disabled_tools": self._disabled_tools,
        }
        if not self.default_roots.isChecked() and (problem := self.roots.first_problem()) is not None:
            raise ValueError(problem)
        if kind is TransportKind.STDIO:
            command, args = self.local.command_line()
            sandbox_enabled, sandbox = self.sandbox.settings()
            env = self._values(name, self.env)
            return ServerConfig(
                name=name,
                transport=kind,
                command=command,
                args=args,
                env=env,
                cwd=self.cwd.text().strip() or None,
                sandbox_enabled=sandbox_enabled,
                sandbox=sandbox,
                **common,
            )
        url = self.remote.address()
        return ServerConfig(
            name=name,
            transport=kind,
            url=url,
            headers=self._values(name, self.headers),
            oauth=self._oauth,
            **common,
        )

    def _values(self, server: str, table: KeyValueTable) -> dict[str, str]:
        values: dict[str, str] = {}
        pending: Mapping[str, str] = {}
        for key, value, secret, stored in table.rows():
            if not secret:
                values[key] = value
                continue
            if stored and not value:
                values[key] = secret_placeholder(stored)  # unchanged: keep the stored secret
                continue
            if self._secrets is None:
                raise ValueError("There is no secret store to keep secret values in.")
            secret_name = stored or secret_name_for(server, key)
            pending = {**pending, secret_name: value}
            values[key] = secret_placeholder(secret_name)
        for secret_name, value in pending.items():
            assert self._secrets is not None
            self._secrets.set(secret_name, value)
        return values

    def _save(self) -> None:
        try:
            config = self.build()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        refusal = self._managed.server_refusal(config)
        if refusal is not None and config != self._warned:
            self._warned = config
            self.error.setText(
                f"Your organisation's policy would block this server: {refusal.what} (rule {refusal.where})."
                " MCP Desk would keep it but not start it. Save again to keep it anyway."
            )
            self.save_button.setText("Save anyway")
            return
        self.save_button.setText("Save")
        self.saved.emit(config, self._previous)

    def show_error(self, text: str) -> None:
        """Keep the dialog open with what went wrong (e.g. a duplicate name)."""
        self.error.setText(text)
