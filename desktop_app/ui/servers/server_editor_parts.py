"""Sections of the server editor that stand on their own: where secrets are kept, and trust."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout, QWidget

from desktop_app.core.secret_store import SecretStore, encryption_advice
from desktop_app.qt_kit.theme import muted
from desktop_app.ui.widgets.style import error_label


def store_note(secrets: SecretStore | None) -> QLabel:
    """Where values ticked secret go; a plaintext file is called what it is, in red, with how to encrypt it."""
    if secrets is None:
        note = error_label()
        note.setText("No secret store is open: values ticked secret cannot be saved.")
        return note
    backend = secrets.backend
    if backend.encrypted:
        return QLabel(f"Values ticked secret are kept in: {backend.label}.")
    note = error_label()
    note.setText(
        f"Values ticked secret are kept {backend.where}: every program you run can read them."
        " To encrypt them: File\u00a0→\u00a0Settings\u00a0→\u00a0Protect secrets with a password…"
    )
    note.setToolTip(encryption_advice(backend))
    return note


class TrustSection(QWidget):
    """Trust is off by default; running read-only tools without asking needs it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trusted = QCheckBox("Trust this server")
        self.trusted.setToolTip(
            "Its tool annotations (read-only, destructive, …) count, and what it returns does not mark a chat"
            " as holding untrusted content. Trust only servers whose code and data you rely on."
        )
        self.auto_read_only = QCheckBox("Run its read-only tools without asking")
        self.auto_read_only.setToolTip("Tools this trusted server declares read-only run without an approval.")
        self.auto_read_only.setEnabled(False)
        self.trusted.toggled.connect(self.auto_read_only.setEnabled)
        note = QLabel(
            "Untrusted by default: MCP Desk then treats its annotations as unverified claims, and its resources"
            " and results make a chat careful (rules pause for tools that are not read-only)."
        )
        note.setWordWrap(True)
        muted(note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.trusted)
        layout.addWidget(self.auto_read_only)
        layout.addWidget(note)
