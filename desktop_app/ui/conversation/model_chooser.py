"""The empty conversation's "Choose a model" card: the providers, and the model servers running here.

It only draws and says what the user picked; `desktop_app.ui.shell.model_choice` looks for the local
servers and applies the choice. Model names come from whatever listens on a local port: they are
shown as plain text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.core.model.local_servers import KNOWN_SERVERS, LocalServer
from desktop_app.core.model.providers import PROVIDERS
from desktop_app.qt_kit.flow_layout import FlowLayout
from desktop_app.qt_kit.theme import heading, muted, themed
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_text import plain_label

NONE_FOUND = (
    "No model server is running on this computer ("
    + ", ".join(f"{kind.label} on port {kind.port}" for kind in KNOWN_SERVERS)
    + " were asked)."
)


class LocalRow(QWidget):
    """One server found here: its name and address, its models, and Use."""

    def __init__(self, server: LocalServer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.server = server
        name = plain_label(f"{server.label} · {server.address}")
        name.setWordWrap(True)
        self.models = QComboBox()
        self.models.addItems(list(server.models))
        self.models.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.models.setMinimumContentsLength(10)
        self.use = QPushButton("Use")
        self.use.setToolTip("Chat with this model from now on (no API key needed)")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(name)
        row.addWidget(self.models, 1)
        row.addWidget(self.use)


class ModelChooser(QFrame):
    """Pick a provider (its settings open) or a model of a server on this computer (used at once)."""

    sig_provider_chosen = Signal(str)  # a provider's id: its settings should open
    sig_local_chosen = Signal(object, str)  # LocalServer, model name: use it now
    sig_look_again = Signal()  # ask the usual ports again

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelChooser")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        themed(
            self,
            lambda p: (
                f"#modelChooser {{ background: {p.raised}; border: 1px solid {p.border};"
                f" border-radius: {SPACE.radius}px; }}"
            ),
        )
        title = heading(QLabel("Choose a model"))
        intro = QLabel(
            "Your messages go to the model you choose: a provider's, with your API key, or one running on"
            " this computer."
        )
        intro.setWordWrap(True)
        muted(intro)
        self.providers: dict[str, QPushButton] = {}
        buttons = QWidget()
        flow = FlowLayout(buttons)
        for provider in PROVIDERS:
            button = QPushButton(f"{provider.label}…")
            button.setToolTip(f"Settings for {provider.label}: the model and, if it needs one, the API key")
            button.clicked.connect(lambda _=False, chosen=provider.id: self.sig_provider_chosen.emit(chosen))
            flow.addWidget(button)
            self.providers[provider.id] = button
        here = QLabel("<b>On this computer</b>")
        self.status = QLabel()
        self.status.setWordWrap(True)
        muted(self.status)
        self.rows = QVBoxLayout()
        self.rows.setContentsMargins(0, 0, 0, 0)
        self.look_again = QPushButton("Look again")
        self.look_again.setToolTip("Ask the usual ports of local model servers on 127.0.0.1 again")
        self.look_again.clicked.connect(self.sig_look_again)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE.xl, SPACE.l, SPACE.xl, SPACE.l)
        layout.setSpacing(SPACE.m)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(buttons)
        layout.addWidget(here)
        layout.addWidget(self.status)
        layout.addLayout(self.rows)
        layout.addWidget(self.look_again, 0, Qt.AlignmentFlag.AlignLeft)
        self.found: list[LocalRow] = []
        self.set_searching()

    def set_searching(self) -> None:
        self._clear_rows()
        self.status.setText("Looking for model servers on this computer (127.0.0.1 only)…")
        self.look_again.setEnabled(False)

    def show_found(self, servers: list[LocalServer]) -> None:
        self._clear_rows()
        self.look_again.setEnabled(True)
        if not servers:
            self.status.setText(NONE_FOUND)
            return
        self.status.setText("Running now, no API key needed:")
        for server in servers:
            row = LocalRow(server)
            row.use.clicked.connect(lambda _=False, r=row: self.sig_local_chosen.emit(r.server, r.models.currentText()))
            self.rows.addWidget(row)
            self.found.append(row)

    def _clear_rows(self) -> None:
        for row in self.found:
            row.hide()
            row.deleteLater()
        self.found = []
