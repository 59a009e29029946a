"""The sign-in's Details: each step with ✓ or ✗, its address, status and the server's own words.

Opened from a failed sign-in (the sign-in card, the servers panel). It only draws the core's
`Diagnosis`: plain text (what servers wrote never renders as markup), credentials already masked,
the servers' answers under each step on request, and Copy for a bug report or the administrator.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.auth.doctor import Diagnosis
from desktop_app.qt_kit.action_icon import give_icon
from desktop_app.ui.widgets.plain_text import plain_label

NOTHING_YET = "No sign-in has been tried for this server yet."


class SignInDetails(QDialog):
    """What each step of `server`'s latest sign-in did; Copy takes it all (answers included)."""

    def __init__(self, server: str, diagnosis: Diagnosis | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signInDetails")
        self.setWindowTitle(f"Sign-in details — {server}")
        self._diagnosis = diagnosis
        failed = diagnosis.failed if diagnosis is not None else None
        summary = f"The sign-in stopped at: {failed.step}." if failed is not None else "Every step went through."
        self.summary = plain_label(summary if diagnosis is not None and diagnosis.findings else NOTHING_YET)
        self.summary.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setObjectName("signInSteps")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(mono)
        self.answers = QCheckBox("Show the servers' answers")
        self.answers.setToolTip("Tokens, codes and secrets in them are masked (•••)")
        self.answers.toggled.connect(lambda _on: self._fill())
        self.copy = QPushButton("Copy")
        self.copy.setObjectName("copySignInDetails")
        self.copy.setToolTip("Copy every step and the servers' answers (secrets masked)")
        self.copy.clicked.connect(self.copy_to_clipboard)
        give_icon(self.copy, "copy")
        self.copy.setEnabled(diagnosis is not None and bool(diagnosis.findings))
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.answers)
        row.addStretch(1)
        row.addWidget(self.copy)
        row.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        self.resize(760, 320)
        self._fill()

    def _fill(self) -> None:
        diagnosis = self._diagnosis
        lines = diagnosis.lines(verbose=self.answers.isChecked()) if diagnosis is not None else []
        self.text.setPlainText("\n".join(lines))

    def copy_to_clipboard(self) -> None:
        if self._diagnosis is not None:
            QGuiApplication.clipboard().setText(self._diagnosis.text())
            self.copy.setText("Copied")


def show_sign_in_details(parent: QWidget, server: str, diagnosis: Diagnosis | None) -> SignInDetails:
    """Open the Details window (not modal: the user may sign in again beside it)."""
    dialog = SignInDetails(server, diagnosis, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
