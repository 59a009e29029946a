"""The server editor's two ways to reach a server: a local command, or an address on the web.

Environment names that change which program runs or what it loads (PATH, LD_PRELOAD, …, see
`launch_env`) are shown in red with a warning: the user wrote them, so they are flagged, not refused.
"""

from __future__ import annotations

import shlex

from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.server_config import ServerConfig
from desktop_app.ui.servers.key_value_table import KeyValueTable
from desktop_app.ui.widgets.style import error_label


def with_buttons(table: KeyValueTable) -> QWidget:
    """`table` with Add and Remove under it."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(table)
    row = QHBoxLayout()
    add, remove = QPushButton("Add"), QPushButton("Remove")
    add.clicked.connect(lambda: table.add_row())
    remove.clicked.connect(table.remove_selected)
    row.addWidget(add)
    row.addWidget(remove)
    row.addStretch(1)
    layout.addLayout(row)
    return box


class CommandPage(QWidget):
    """A local server: its command, arguments, working directory and environment (secret values kept `where`)."""

    def __init__(self, where: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.command = QLineEdit()
        self.command.setPlaceholderText("npx, uvx, python, /path/to/server …")
        self.args = QLineEdit()
        self.args.setPlaceholderText('-y @modelcontextprotocol/server-filesystem "/my files"')
        self.cwd = QLineEdit()
        self.cwd.setPlaceholderText("optional working directory")
        self.env = KeyValueTable("Variable", where)
        self.env_warning = error_label()
        self.env_warning.setObjectName("launchEnvWarning")
        self.env_warning.setWordWrap(True)
        self.env_warning.hide()
        self.env.itemChanged.connect(lambda _item: self._flag_env())
        self.env.model().rowsRemoved.connect(lambda *_: self._flag_env())
        form = QFormLayout(self)
        form.addRow("Command", self.command)
        form.addRow("Arguments", self.args)
        form.addRow("Working directory", self.cwd)
        form.addRow("Environment", with_buttons(self.env))
        form.addRow("", self.env_warning)

    def _flag_env(self) -> None:
        names = self.env.flag_names()
        self.env_warning.setVisible(bool(names))
        if names:
            listed = ", ".join(names)
            change = "changes" if len(names) == 1 else "change"
            self.env_warning.setText(
                f"⚠ {listed} {change} which program runs or what it loads: the command above may not be"
                " what starts. Keep only if you know why it is there."
            )

    def load(self, config: ServerConfig) -> None:
        self.command.setText(config.command or "")
        self.args.setText(shlex.join(config.args))
        self.cwd.setText(config.cwd or "")
        self.env.setRowCount(0)
        for key, value in config.env.items():
            self.env.add_row(key, value)

    def command_line(self) -> tuple[str, tuple[str, ...]]:
        """The command and its arguments; raises ValueError when there is no command or the quoting is off."""
        command = self.command.text().strip()
        if not command:
            raise ValueError("A local server needs a command.")
        try:
            args = tuple(shlex.split(self.args.text()))
        except ValueError as exc:
            raise ValueError(f"Arguments: {exc}") from exc
        return command, args


class AddressPage(QWidget):
    """A remote server: its URL and the headers sent with each request (secret values kept `where`)."""

    def __init__(self, where: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = KeyValueTable("Header", where)
        form = QFormLayout(self)
        form.addRow("URL", self.url)
        form.addRow("Headers", with_buttons(self.headers))

    def load(self, config: ServerConfig) -> None:
        self.url.setText(config.url or "")
        self.headers.setRowCount(0)
        for key, value in config.headers.items():
            self.headers.add_row(key, value)

    def address(self) -> str:
        """The URL; raises ValueError when it is not a web address."""
        url = self.url.text().strip()
        if not url.startswith(("http://", "https://")):
            raise ValueError("The URL must start with http:// or https://.")
        return url
