"""The install side of the gallery (and of a dropped bundle, and of a domain's servers): details, how to
install, the form, the consent card, the outcome and, for a Server Card, how the connected server
compares with it, top to bottom in one scrolling column. Drawing only.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.discovery.address import DomainAddress
from desktop_app.core.discovery.discover import FoundServer
from desktop_app.core.registry.choices import Choice
from desktop_app.core.registry.fields import Answers, Field
from desktop_app.core.registry.manifest import Manifest
from desktop_app.core.registry.model import ServerEntry
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.layout_widgets import discard_widgets
from desktop_app.qt_kit.theme import coloured, danger, muted
from desktop_app.ui.asks.card import AskCard
from desktop_app.ui.gallery.details_view import DetailsView
from desktop_app.ui.gallery.install_form import InstallForm
from desktop_app.ui.widgets.style import error_label


class InstallPane(QWidget):
    """Shows one server (or bundle) and collects what installing it needs."""

    sig_choice_changed = Signal(int)
    """The user picked another way to install (an index into the choices shown)."""
    sig_review = Signal()
    """The user asked to review the install: the controller builds the plan and asks for consent."""
    sig_sign_in = Signal()
    """The installed server asks for sign-in and the user pressed Sign in (or Cancel while waiting)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.details = DetailsView()
        self.choice = QComboBox()
        self.choice.setObjectName("installChoice")
        self.choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(24)
        self.problem = QLabel()
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        danger(self.problem)
        self.problem.hide()
        self.form = InstallForm()
        self.error = error_label()
        self.error.setObjectName("installError")
        self.review = QPushButton("Review and install…")
        self.review.setObjectName("reviewInstall")
        self.review.setDefault(True)
        self.cards = QVBoxLayout()
        self.cards.setContentsMargins(0, 0, 0, 0)
        self.result = QLabel()
        self.result.setObjectName("installResult")
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        self.check = QLabel()
        self.check.setObjectName("installCardCheck")
        self.check.setWordWrap(True)
        self.check.setTextFormat(Qt.TextFormat.PlainText)
        self.check.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.check.hide()
        self.sign_in = QPushButton("Sign in…")
        self.sign_in.setObjectName("installSignIn")
        self.sign_in.hide()

        self.install_box = QWidget()
        box = QVBoxLayout(self.install_box)
        box.setContentsMargins(0, 0, 0, 0)
        heading = QLabel("<b>Install</b>")
        choice_row = QHBoxLayout()
        choice_row.addWidget(QLabel("Install from"))
        choice_row.addWidget(self.choice, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.review)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        box.addWidget(line)
        box.addWidget(heading)
        box.addLayout(choice_row)
        box.addWidget(self.problem)
        box.addWidget(self.form)
        box.addWidget(self.error)
        box.addLayout(buttons)

        column = QWidget()
        column.setObjectName("installColumn")
        layout = QVBoxLayout(column)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(10)
        layout.addWidget(self.details)
        layout.addWidget(self.install_box)
        layout.addLayout(self.cards)
        layout.addWidget(self.result)
        layout.addWidget(self.check)
        sign_in_row = QHBoxLayout()
        sign_in_row.addWidget(self.sign_in)
        sign_in_row.addStretch(1)
        layout.addLayout(sign_in_row)
        layout.addStretch(1)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setWidget(column)

        self.placeholder = QLabel("Select a server to see what it offers and how to install it.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        muted(self.placeholder)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.placeholder)
        self.pages.addWidget(self.scroller)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)

        self._follow = False
        self.scroller.verticalScrollBar().rangeChanged.connect(self._on_range)
        self.choice.currentIndexChanged.connect(self.sig_choice_changed)
        self.review.clicked.connect(self.sig_review)
        self.sign_in.clicked.connect(self.sig_sign_in)

    # -- what is shown ---------------------------------------------------------------------

    def clear(self, text: str | None = None, *, error: bool = False) -> None:
        """Show only a line of text (nothing selected, or why nothing can be shown)."""
        if text:
            self.placeholder.setText(text)
        coloured(self.placeholder, "danger" if error else "muted")
        self.pages.setCurrentWidget(self.placeholder)

    def _reset(self) -> None:
        self._follow = False
        self.pages.setCurrentWidget(self.scroller)
        self.scroller.verticalScrollBar().setValue(0)
        self.error.clear()
        self.result.hide()
        self.check.hide()
        self.sign_in.hide()
        self.install_box.setEnabled(True)
        self.install_box.show()
        discard_widgets(self.cards)

    def show_entry(self, entry: ServerEntry, icon: QIcon) -> None:
        self._reset()
        self.details.show_entry(entry, icon)

    def show_manifest(self, manifest: Manifest, icon: QIcon, source: str) -> None:
        self._reset()
        self.details.show_manifest(manifest, icon, source)

    def show_found(self, found: FoundServer, icon: QIcon, domain: DomainAddress) -> None:
        """A server a domain's Server Card describes."""
        self._reset()
        self.details.show_card(found, icon, domain)

    def set_choices(self, choices: list[Choice], selected: int = 0) -> None:
        """The ways to install; unusable ones stay listed but cannot be picked."""
        self.choice.blockSignals(True)
        self.choice.clear()
        for index, choice in enumerate(choices):
            self.choice.addItem(choice.label)
            if not choice.available:
                item = self.choice.model().item(index)  # type: ignore[attr-defined]
                item.setEnabled(False)
                item.setToolTip(choice.problem or "")
        self.choice.setCurrentIndex(selected)
        self.choice.blockSignals(False)
        if not choices:
            self.show_problem("The registry lists no package or remote for this server.")
        elif not choices[selected].available:
            self.show_problem(f"Cannot install this way here: {choices[selected].problem}")
        else:
            self.show_problem(None)

    def show_problem(self, text: str | None) -> None:
        """Why the current choice cannot be installed (hides the form), or None."""
        self.problem.setText(text or "")
        self.problem.setVisible(bool(text))
        self.form.setVisible(not text)
        self.review.setEnabled(not text)

    def set_fields(
        self, fields: list[Field], prefill: Mapping[str, tuple[str, ...]] | None = None, stored: Collection[str] = ()
    ) -> None:
        self.form.set_fields(fields, prefill, stored)

    def answers(self) -> Answers:
        return self.form.answers()

    def show_error(self, text: str) -> None:
        self.error.setText(text)

    def set_busy(self, busy: bool, note: str | None = None) -> None:
        """While a plan is built or an install runs, the form cannot change under it."""
        self.install_box.setEnabled(not busy)
        if note is not None:
            self.show_result(note)

    def show_card(self, card: AskCard[Any]) -> None:
        self.cards.addWidget(card)
        self._follow = True  # keep the bottom (the card, then the outcome) in view as the column grows

    def _on_range(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.scroller.verticalScrollBar().setValue(maximum)

    def show_result(self, text: str, *, ok: bool | None = None) -> None:
        self.result.setText(printable(text))
        coloured(self.result, "" if ok is None else "success" if ok else "danger")
        self.result.show()

    def show_card_check(self, mismatches: tuple[str, ...]) -> None:
        """How the connected server compares with its card: each disagreement, or that they agree."""
        if mismatches:
            lines = "\n".join(f"• {line}" for line in mismatches)
            text = f"Its card and the server disagree (what the server says counts):\n{lines}"
        else:
            text = "The server matches its card."
        self.check.setText(printable(text))
        coloured(self.check, "caution" if mismatches else "muted")
        self.check.show()

    def offer_sign_in(self, text: str | None) -> None:
        """A button under the outcome while the new server waits for sign-in ("Sign in…", "Cancel"), or none."""
        self.sign_in.setText(text or "")
        self.sign_in.setVisible(bool(text))

    def installed(self) -> None:
        """After a successful install the form is done; the outcome line follows the server's state."""
        self.install_box.hide()
