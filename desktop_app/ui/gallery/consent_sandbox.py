"""The consent card's sandbox part: whether the server runs sandboxed, what it may write and reach, and
the one box that runs it without (greyed, with the reason, when the sandbox is required).

Unticked, the card says in the caution colour what the server can then do; where this computer cannot
sandbox servers, it says the server will not start until that is fixed, unless the box is unticked.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QStyle, QVBoxLayout, QWidget

from desktop_app.core.registry.sandbox_offer import UNSANDBOXED, SandboxOffer
from desktop_app.core.terminal_text import printable
from desktop_app.qt_kit.theme import coloured

SANDBOX_BOX = "Run it in the sandbox"


def _label(text: str, name: str, role: str = "") -> QLabel:
    label = QLabel(printable(text))
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    if role:
        coloured(label, role)
    return label


class SandboxChoice(QWidget):
    """The offer as the user sees it, and their choice (`sandboxed`)."""

    def __init__(self, offer: SandboxOffer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.offer = offer
        self.box = QCheckBox(SANDBOX_BOX + (f" ({offer.tier})" if offer.tier else ""))
        self.box.setObjectName("consentSandbox")
        self.box.setChecked(offer.enabled or offer.required is not None)
        if offer.required is not None:
            self.box.setEnabled(False)
            self.box.setToolTip(offer.required)
        self.rights = _label("\n".join(offer.rights()), "consentSandboxRights", "muted")
        unavailable = offer.unavailable()
        self.unavailable = _label(
            f"{unavailable}; untick “{SANDBOX_BOX}” to run it without." if unavailable else "",
            "consentSandboxUnavailable",
            "caution",
        )
        self.without = _label(UNSANDBOXED, "consentSandboxWarning", "caution")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.box)
        below = QVBoxLayout()  # under the box's text, not its tick: what the box decides
        indent = self.box.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth)
        below.setContentsMargins(
            indent + self.box.style().pixelMetric(QStyle.PixelMetric.PM_CheckBoxLabelSpacing), 0, 0, 0
        )
        for widget in (self.rights, self.unavailable, self.without):
            below.addWidget(widget)
        layout.addLayout(below)
        self.box.toggled.connect(self._show)
        self._show(self.box.isChecked())

    @property
    def sandboxed(self) -> bool:
        return self.box.isChecked()

    def _show(self, checked: bool) -> None:
        self.rights.setVisible(checked)
        self.unavailable.setVisible(checked and bool(self.unavailable.text()))
        self.without.setVisible(not checked)

    def collapse(self) -> None:
        self.box.setEnabled(False)
