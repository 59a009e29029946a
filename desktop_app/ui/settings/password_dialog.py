"""Asking for the secrets password without blocking the event loop.

`ask` opens the dialog (non-modal `open()`) and returns when the user answers; `check` lets the
caller try the password and keep the dialog open with an error when it is wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_app.ui.widgets.style import error_label


class PasswordDialog(QDialog):
    def __init__(self, parent: QWidget | None, title: str, text: str, *, confirm: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("passwordDialog")
        self.setWindowTitle(title)
        self.setMinimumWidth(420)
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat = QLineEdit()
        self.repeat.setEchoMode(QLineEdit.EchoMode.Password)
        self.error = error_label()
        message = QLabel(text)
        message.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Password", self.password)
        if confirm:
            form.addRow("Repeat", self.repeat)
        self._confirm = confirm
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(message)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.buttons.rejected.connect(self.reject)

    async def ask(self, check: Callable[[str], str | None]) -> str | None:
        """The accepted password, or None if cancelled. `check` returns an error to show, or None."""
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def submit() -> None:
            password = self.password.text()
            if not password:
                self.error.setText("Enter a password.")
                return
            if self._confirm and password != self.repeat.text():
                self.error.setText("The two passwords differ.")
                return
            if (problem := check(password)) is not None:
                self.error.setText(problem)
                self.password.selectAll()
                return
            if not answer.done():
                answer.set_result(password)
            self.accept()

        def cancelled() -> None:
            if not answer.done():
                answer.set_result(None)

        self.buttons.accepted.connect(submit)
        self.rejected.connect(cancelled)
        self.open()
        self.password.setFocus()
        return await answer
