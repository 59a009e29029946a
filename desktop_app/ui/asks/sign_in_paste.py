"""The paste fallback in the window: for a browser that cannot reach this computer.

Shown while a sign-in waits for its browser (the core's `PastedRedirect` says which page): the
authorization page's address to open in any browser, and a field for the address that browser
ended on ("this site can't be reached" included). What is pasted goes to the sign-in under way,
which checks it as it checks a redirect (its address, state and issuer) and says why it refuses.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGridLayout, QLineEdit, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.paste import PastedRedirect
from desktop_app.qt_kit.action_icon import give_icon
from desktop_app.qt_kit.theme import danger, muted
from desktop_app.ui.widgets.plain_text import plain_label


class PasteFallback(QWidget):
    """ "Browser on another computer?": the page to open anywhere, and where to paste where it ended."""

    def __init__(self, paste: PastedRedirect, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pasteFallback")
        self._paste = paste
        self.toggle = QToolButton()
        self.toggle.setText("Browser on another computer?")
        self.toggle.setToolTip("Sign in from a browser on another computer, or one that cannot get back to this one")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.toggled.connect(self._expand)
        self.page = QLineEdit()
        self.page.setObjectName("signInPage")
        self.page.setReadOnly(True)
        self.copy_page = QPushButton("Copy link")
        self.copy_page.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.page.text()))
        give_icon(self.copy_page, "copy")
        self.address = QLineEdit()
        self.address.setObjectName("pastedAddress")
        self.address.setPlaceholderText("http://127.0.0.1:…/callback?code=…")
        self.address.returnPressed.connect(self.submit)
        self.use = QPushButton("Use this address")
        self.use.clicked.connect(self.submit)
        self.problem = plain_label()
        self.problem.setWordWrap(True)
        danger(self.problem)
        self.problem.hide()
        steps = QGridLayout()
        steps.setContentsMargins(18, 0, 0, 0)
        first = plain_label("1. Open this page in a browser, on any computer, and sign in:")
        second = plain_label(
            "2. The browser then goes to an address starting with http://127.0.0.1 and may say it cannot reach "
            "it. Copy that whole address from its address bar and paste it here:"
        )
        for label in (first, second):
            label.setWordWrap(True)
            muted(label)
        steps.addWidget(first, 0, 0, 1, 2)
        steps.addWidget(self.page, 1, 0)
        steps.addWidget(self.copy_page, 1, 1)
        steps.addWidget(second, 2, 0, 1, 2)
        steps.addWidget(self.address, 3, 0)
        steps.addWidget(self.use, 3, 1)
        steps.addWidget(self.problem, 4, 0, 1, 2)
        self.steps = QWidget()
        self.steps.setLayout(steps)
        self.steps.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.steps)
        self.hide()
        self._unwatch = paste.watch(self._on_page)
        self.destroyed.connect(lambda _obj=None, unwatch=self._unwatch: unwatch())

    def _on_page(self, page: str | None) -> None:
        """A sign-in showed `page` (or ended: None)."""
        self.page.setText(page or "")
        self.page.setCursorPosition(0)
        self.address.clear()
        self.problem.hide()
        danger(self.problem)
        self.setVisible(page is not None)

    def _expand(self, open_: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.steps.setVisible(open_)

    def submit(self) -> None:
        """Hand the pasted address to the sign-in; say why when it is not taken."""
        text = self.address.text().strip()
        if not text:
            return
        try:
            self._paste.paste(text)
        except SignInError as exc:
            danger(self.problem)
            self.problem.setText(f"Not taken: {exc}.")
            self.problem.show()
            return
        self.problem.setText("Address taken; finishing the sign-in…")
        muted(self.problem)
        self.problem.show()
