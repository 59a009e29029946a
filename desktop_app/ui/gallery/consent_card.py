"""The consent card: exactly what an install will run or contact, whole, with a warning, and two buttons.

The command is shown as one shell-quoted line in a read-only monospace box that wraps instead of
eliding, so every argument is visible; the box grows with it. A local server's sandbox and its rights
follow, with the box that runs it without (`consent_sandbox`). Secrets appear only as their
`${secret:NAME}` placeholders. Publisher text is shown plain, with control and bidi characters
written out, so nothing in it can reorder or hide what the user agrees to. Closing the gallery
withdraws the card, which declines.
"""

from __future__ import annotations

import html
import shlex

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QTextOption
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget

from desktop_app.core.registry.install import InstallConsent, InstallReply
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.theme import coloured
from desktop_app.ui.asks.card import AskCard, Tone
from desktop_app.ui.gallery.consent_sandbox import SandboxChoice


class CommandBox(QPlainTextEdit):
    """Read-only, selectable, wrapped anywhere, as tall as its text: nothing is ever cut off."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setObjectName("consentCommand")
        self.setReadOnly(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self._fit())
        self._fit()

    def _fit(self) -> None:
        lines = max(1, int(self.document().size().height()))
        height = lines * self.fontMetrics().lineSpacing() + 2 * int(self.document().documentMargin()) + 6
        self.setFixedHeight(height)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit()


def consent_text(question: InstallConsent) -> str:
    """The command line, shell-quoted so every argument's edges are visible (or the URL)."""
    return printable(shlex.join(question.command) if question.command else question.url or "")


def settings_text(question: InstallConsent) -> str:
    """Environment variables and headers, one per line (secrets as their placeholders)."""
    return printable(
        "\n".join(
            [f"{name}={value}" for name, value in question.env]
            + [f"{name}: {value}" for name, value in question.headers]
        )
    )


class ConsentCard(AskCard[InstallReply]):
    """Install or cancel; the reply installs only when the user pressed Install, sandboxed as the box says."""

    def __init__(self, question: InstallConsent, parent: QWidget | None = None) -> None:
        name = html.escape(question.server)
        title = f"Update <b>{name}</b>?" if question.update_from else f"Add <b>{name}</b> to your servers?"
        super().__init__(question, title, tone=Tone.CAUTION, parent=parent)
        self.setObjectName("askCard")
        update = f" — update from {html.escape(question.update_from)}" if question.update_from else ""
        self.origin.setText(f"{html.escape(printable(question.source))}{update}")
        self.origin.setWordWrap(True)
        what = QLabel("It will start this command:" if question.command else "It will connect to:")
        self.command = CommandBox(consent_text(question))
        warning = QLabel(f"⚠ {question.warning}")
        warning.setWordWrap(True)
        warning.setObjectName("consentWarning")
        self.body.addWidget(what)
        self.body.addWidget(self.command)
        self.settings: CommandBox | None = None
        if question.env or question.headers:
            self.body.addWidget(QLabel("With these environment variables:" if question.env else "With these headers:"))
            self.settings = CommandBox(settings_text(question))
            self.settings.setObjectName("consentSettings")
            self.body.addWidget(self.settings)
        self.sandbox: SandboxChoice | None = None
        if question.sandbox is not None:
            self.sandbox = SandboxChoice(question.sandbox)
            self.body.addWidget(self.sandbox)
        self.body.addWidget(warning)
        for note in question.notes:
            label = QLabel(printable(note))
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
            self.body.addWidget(label)
        if question.secrets:
            # Where the secrets go, said plainly: a plaintext store is a caution, not a footnote.
            secrets = QLabel(printable(question.secrets_line))
            secrets.setObjectName("consentSecrets")
            secrets.setTextFormat(Qt.TextFormat.PlainText)
            secrets.setWordWrap(True)
            coloured(secrets, "muted" if question.stored_encrypted else "caution")
            self.body.addWidget(secrets)
        self.install = self.add_button("Update" if question.update_from else "Install")
        self.install.clicked.connect(self._agree)
        self.cancel = self.add_button("Cancel", question.fallback(), default=True, right=True)

    def _agree(self) -> None:
        assert isinstance(self.question, InstallConsent)
        self.answer(self.question.yes(self.sandbox.sandboxed if self.sandbox is not None else None))

    def describe(self, reply: InstallReply) -> str:
        if not reply.install:
            return "Cancelled: nothing was installed."
        if self.sandbox is not None and not reply.sandboxed:
            return "You agreed, without the sandbox."
        return "You agreed."

    def collapse(self) -> None:
        self.command.setEnabled(False)
        if self.settings is not None:
            self.settings.setEnabled(False)
        if self.sandbox is not None:
            self.sandbox.collapse()
