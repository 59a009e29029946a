"""The server editor's "Sandbox" section: `sandboxEnabled` and the `sandbox` object of a local server.

Each list is one entry a line, so it is typed, pasted and edited with the keyboard alone; a folder picker
adds a line to the path lists. The lists are checked by the config loader's own rules
(`sandbox_from_dict`), so what the editor accepts the loader accepts, and an error names the field.
The section also says what this system can confine a server with: without bubblewrap a sandboxed
server does not start, and the user should learn that here rather than from a failed start.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.config_error import ConfigError
from desktop_app.core.sandbox.probe import BUBBLEWRAP, SandboxSupport, system_support
from desktop_app.core.sandbox.settings import SandboxSettings, sandbox_from_dict
from desktop_app.qt_kit.theme import coloured


@dataclass(frozen=True)
class _Field:
    section: str
    key: str
    label: str
    hint: str


FIELDS: Final = (
    _Field("filesystem", "allowWrite", "May write to", "/home/you/notes (one folder a line)"),
    _Field("filesystem", "denyRead", "May not read", "~/private"),
    _Field("filesystem", "denyWrite", "May not write to", "~/notes/archive"),
    _Field("network", "allowedDomains", "May reach hosts", "api.example.com, *.example.org (one a line)"),
    _Field("network", "deniedDomains", "Never hosts", "ads.example.org"),
)
_ATTRIBUTE: Final = {
    "allowWrite": "allow_write",
    "denyRead": "deny_read",
    "denyWrite": "deny_write",
    "allowedDomains": "allowed_domains",
    "deniedDomains": "denied_domains",
}


def support_text(support: SandboxSupport | None) -> tuple[str, bool]:
    """What this system can confine a server with, and whether that is a problem (shown in red)."""
    if support is None:
        return "Checking what this system can confine it with…", False
    if support.tier is None:
        return f"A sandboxed server will not start until this is fixed: {support.problem}.", True
    if support.tier == BUBBLEWRAP:
        return (
            "This system confines it with bubblewrap: files read-only, secrets hidden, no network but the hosts below.",
            False,
        )
    return f"This system confines it with {support.label} (bubblewrap cannot run here).", False


class _Probe(QObject):
    """Carries the probe's answer from its thread to the section (a queued signal)."""

    done = Signal(object)  # SandboxSupport


def probe_in_background(show: Callable[[SandboxSupport], None]) -> None:
    """`system_support()` off the Qt thread (the first call runs bubblewrap); `show` gets it on the Qt thread."""
    if system_support.cache_info().currsize:
        show(system_support())
        return
    carrier = _Probe()
    carrier.done.connect(show)
    threading.Thread(target=lambda: carrier.done.emit(system_support()), name="sandbox-probe", daemon=True).start()


class SandboxSection(QWidget):
    """The fields of `sandboxEnabled` and `sandbox`; `settings()` checks them as the config loader does."""

    def __init__(self, support: SandboxSupport | None = None, parent: QWidget | None = None) -> None:
        """`support` is what this system can confine with; by default it is probed without blocking."""
        super().__init__(parent)
        self._loaded: SandboxSettings | None = None
        self._loaded_enabled = False
        self._required = False
        self.enabled = QCheckBox("Run in a sandbox")
        self.enabled.setObjectName("sandboxEnabled")
        self.enabled.setToolTip(
            "It sees your files read-only, not your keys or browser profiles, writes only where listed, and"
            " reaches only the hosts listed. It never runs unconfined instead."
        )
        self.support = QLabel()
        self.support.setObjectName("sandboxSupport")
        self.support.setWordWrap(True)
        self.show_support(support)
        self.lists: dict[str, QPlainTextEdit] = {}
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        for field in FIELDS:
            edit = QPlainTextEdit()
            edit.setObjectName(f"sandbox_{field.key}")
            edit.setPlaceholderText(field.hint)
            edit.setTabChangesFocus(True)  # Tab moves on; a list is still typed line by line
            edit.setFixedHeight(edit.fontMetrics().lineSpacing() * 3 + 12)
            edit.setToolTip(f"{field.key}: one entry a line")
            self.lists[field.key] = edit
            form.addRow(field.label, self._with_picker(edit) if field.section == "filesystem" else edit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.enabled)
        layout.addWidget(self.support)
        layout.addLayout(form)

    def show_support(self, support: SandboxSupport | None) -> None:
        """Say what this system confines with; a problem in red, since the server would not start."""
        text, problem = support_text(support)
        self.support.setText(text)
        coloured(self.support, "danger" if problem else "muted")

    def _with_picker(self, edit: QPlainTextEdit) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(edit, 1)
        pick = QPushButton("Folder…")
        pick.setToolTip("Add a folder to this list")
        pick.clicked.connect(lambda: self._pick_folder(edit))
        row.addWidget(pick)
        return box

    def _pick_folder(self, edit: QPlainTextEdit) -> QFileDialog:
        dialog = QFileDialog(self, "Choose a folder", str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(lambda folder: self.add_line(edit, folder))
        dialog.open()
        return dialog

    @staticmethod
    def add_line(edit: QPlainTextEdit, text: str) -> None:
        lines = [line for line in edit.toPlainText().splitlines() if line.strip()]
        if text and text not in lines:
            edit.setPlainText("\n".join([*lines, text]))

    def require(self, reason: str) -> None:
        """The organisation's policy sandboxes every local server: the switch shows it on, and cannot change."""
        self._required = True
        self.enabled.setChecked(True)
        self.enabled.setEnabled(False)
        self.enabled.setToolTip(reason)

    def load(self, enabled: bool, settings: SandboxSettings | None) -> None:
        self._loaded = settings
        self._loaded_enabled = enabled
        self.enabled.setChecked(enabled or self._required)
        for key, edit in self.lists.items():
            edit.setPlainText("\n".join(getattr(settings, _ATTRIBUTE[key]) if settings else ()))

    def entries(self, key: str) -> list[str]:
        """The field's lines, blank ones left out."""
        return [line.strip() for line in self.lists[key].toPlainText().splitlines() if line.strip()]

    def settings(self) -> tuple[bool, SandboxSettings | None]:
        """(`sandboxEnabled`, `sandbox`); raises ValueError naming the field and line that is wrong."""
        document: dict[str, dict[str, list[str]]] = {}
        for field in FIELDS:
            lines = self.entries(field.key)
            if lines:
                document.setdefault(field.section, {})[field.key] = lines
        try:
            settings = sandbox_from_dict(document, ("sandbox",))
        except ConfigError as exc:
            raise ValueError(self._worded(exc)) from exc
        if settings == SandboxSettings() and self._loaded in (None, SandboxSettings()):
            settings_or_none = self._loaded  # nothing listed: keep the entry as it was written
        else:
            settings_or_none = settings
        # Under the policy the switch is not the user's: the entry keeps what it said.
        enabled = self._loaded_enabled if self._required else self.enabled.isChecked()
        return enabled, settings_or_none

    def _worded(self, exc: ConfigError) -> str:
        """The loader's message, with the field's label in front and its box focused."""
        path = exc.key_path or ()
        key = next((str(part) for part in path if str(part) in self.lists), None)
        if key is None:
            return f"Sandbox: {exc}"
        field = next(f for f in FIELDS if f.key == key)
        line = next((part for part in path if isinstance(part, int)), None)
        self.lists[key].setFocus()
        where = f", line {line + 1}" if line is not None else ""
        return f"Sandbox → {field.label} ({key}){where}: {exc}"
