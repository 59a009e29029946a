"""A server's log in the Servers panel: its stderr, its log messages and the host's notes, filtered by level."""

from __future__ import annotations

import time
from collections.abc import Iterable

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from desktop_app.core.events import LogEntry
from desktop_app.core.server_config import LOG_LEVELS
from desktop_app.core.terminal_text import printable


def format_log_entry(entry: LogEntry) -> str:
    """One log line; a server's control characters (colour codes aside) are shown as escapes."""
    stamp = time.strftime("%H:%M:%S", time.localtime(entry.time))
    return f"{stamp}  {entry.source:<6} {entry.level:<7} {printable(entry.text)}"


class ServerLogView(QWidget):
    """The level filter over the log's lines; long lines wrap, so nothing is hidden to the right."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.level = QComboBox()
        self.level.setObjectName("logLevelFilter")
        for level in LOG_LEVELS[:5]:
            self.level.addItem(f"{level} and above" if level != "debug" else "everything", level)
        self.level.setCurrentIndex(LOG_LEVELS.index("info"))
        self.level.setToolTip("Show log lines of this level and above (stderr lines count as info)")
        self.level.currentIndexChanged.connect(lambda _index: self.show_entries(self._entries))
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(5000)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setObjectName("serverLog")
        self.text.setMinimumHeight(90)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(mono)
        # What the log holds is said in the empty box and its tooltip, not in a header label: the Servers
        # dock must fit beside the conversation in a small window.
        self.text.setPlaceholderText("The server's stderr, its log messages and the host's notes appear here.")
        self.text.setToolTip("The server's stderr, its log messages and the host's notes")
        header = QHBoxLayout()
        header.addWidget(QLabel("Show"))
        header.addWidget(self.level)
        header.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.text, 1)
        self._entries: Iterable[LogEntry] = ()

    def show_entries(self, entries: Iterable[LogEntry]) -> None:
        """Show the lines of `entries` (a server's live log) that pass the filter, scrolled to the end."""
        self._entries = entries
        self.text.setPlainText("\n".join(format_log_entry(e) for e in entries if self.shown(e)))
        self.text.moveCursor(self.text.textCursor().MoveOperation.End)
        self.text.horizontalScrollBar().setValue(0)

    def append(self, entry: LogEntry) -> None:
        if self.shown(entry):
            self.text.appendPlainText(format_log_entry(entry))

    def shown(self, entry: LogEntry) -> bool:
        """Whether the filter lets `entry` through (unknown levels always show)."""
        wanted = LOG_LEVELS.index(str(self.level.currentData()))
        return entry.level not in LOG_LEVELS or LOG_LEVELS.index(entry.level) >= wanted
