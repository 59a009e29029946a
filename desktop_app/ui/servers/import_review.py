"""The review an import shows before anything is saved: an import is an install.

Per new server: its name, the program it runs by absolute path with its arguments (or the address),
the names its environment sets (those that change which program runs or what it loads in the danger
colour), the trust-granting keys that were dropped, and why a server is refused. Import saves exactly
what is shown; Cancel, closing or Escape saves nothing. The dialog is non-modal (`open()`), so the
servers keep running while the user reads. Everything shown is the file's text: plain text, with its
control characters written out.
"""

from __future__ import annotations

import shlex

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.config_import import CLIENT_NAMES, ImportedServer, ImportReport
from desktop_app.core.launch_env import changes_launch
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.theme import coloured


def _text(text: str, role: str = "") -> QLabel:
    """A selectable line of plain text, in the theme's colour `role` (none: the text's own)."""
    label = QLabel(printable(text))
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if role:
        coloured(label, role)
    return label


class ServerReview(QFrame):
    """One new server as it would be saved."""

    def __init__(self, name: str, server: ImportedServer) -> None:
        super().__init__()
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        config = server.config
        self.title = _text(name)
        self.title.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.title)
        if server.refusal:
            self.verdict = _text(f"Not imported: {server.refusal}.", "danger")
        else:
            self.verdict = _text("Will be added.", "muted")
        layout.addWidget(self.verdict)
        if config.is_stdio:
            self.launch = _text(f"Runs: {shlex.join([config.command or '', *config.args])}")
        else:
            self.launch = _text(f"Connects to: {config.url}")
        self.launch.setObjectName("importLaunch")
        layout.addWidget(self.launch)
        if server.program_note:
            layout.addWidget(_text(server.program_note, "muted"))
        if config.cwd:
            layout.addWidget(_text(f"In the folder: {config.cwd}"))
        plain = [key for key in config.env if not changes_launch(key)]
        risky = [key for key in config.env if changes_launch(key)]
        self.environment = _text(f"Environment: {', '.join(plain)}") if plain else None
        self.risky = (
            _text(f"{', '.join(risky)}: changes which program runs or what it loads", "danger") if risky else None
        )
        for label in (self.environment, self.risky):
            if label is not None:
                layout.addWidget(label)
        if config.headers:
            layout.addWidget(_text(f"Headers: {', '.join(config.headers)}"))
        line = server.dropped_line
        self.dropped = _text(f"{line[:1].upper()}{line[1:]}.", "muted") if line else None
        if self.dropped is not None:
            layout.addWidget(self.dropped)


class ImportReview(QDialog):
    """Emits `confirmed(report)` on Import; nothing else it does writes anything."""

    confirmed = Signal(object)

    def __init__(self, report: ImportReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report
        self.setWindowTitle("Import servers")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        layout = QVBoxLayout(self)
        layout.addWidget(_text(f"From {CLIENT_NAMES[report.kind]}: {report.source}"))
        layout.addWidget(
            _text("Each server below runs on this computer with your permissions. Import only what you trust.", "muted")
        )
        body = QWidget()
        rows = QVBoxLayout(body)
        self.servers = [ServerReview(name, server) for name, server in report.new.items()]
        for row in self.servers:
            rows.addWidget(row)
        for line in self._other_lines():
            rows.addWidget(_text(line, "muted"))
        rows.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        layout.addWidget(scroll, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button: QPushButton = buttons.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setEnabled(bool(report.added))
        buttons.accepted.connect(self._import)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(640, 480)

    def _other_lines(self) -> list[str]:
        report = self.report
        lines = report.notes()
        if not report.new and not report.skipped and not report.unchanged:
            lines.append("The file holds no servers.")
        return [*lines, *report.warnings]

    def _import(self) -> None:
        self.confirmed.emit(self.report)
        self.accept()
