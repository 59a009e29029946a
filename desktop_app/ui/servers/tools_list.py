"""A server's tools in the Servers panel: what each says it does, and a switch to turn it off.

A switched-off tool (the entry's `disabledTools`) is never offered to the model: the host leaves
it out of the catalog. This list shows the connection's full listing, so a tool that is off stays
here to be switched on again. A tool whose input schema no provider could take is quarantined (the
catalog keeps it from the model): its row and details say so and why (`core/tool_schemas`). Every
word in it is the server's: plain text, control characters written out, never markup.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Final

from mcp_types import Tool
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.extensions.apps_meta import visible_to_model
from desktop_app.core.terminal_text import printable
from desktop_app.core.tool_schemas import input_problem, output_problem
from desktop_app.core.trust import ToolHints
from desktop_app.qt_kit.theme import coloured
from desktop_app.qt_kit.tokens import SPACE
from desktop_app.ui.widgets.plain_tooltips import PlainToolTips

_NAME_ROLE: Final = Qt.ItemDataRole.UserRole
MAX_SHOWN: Final = 20_000
"""Characters of a description or schema shown; a server's text beyond that is cut (and says so)."""
MAX_ROWS: Final = 8
"""Rows shown at once; a longer list scrolls."""
READ_ONLY_NOTE: Final = "Add this server to your servers.json (Add server…) to switch its tools off."


def _shown(text: str) -> str:
    text = printable(text)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"\n… ({len(text) - MAX_SHOWN:,} more characters)"


def tool_title(tool: Tool) -> str:
    return tool.title or (tool.annotations.title if tool.annotations is not None else None) or ""


def quarantine(tool: Tool) -> str | None:
    """Why the model is not offered `tool` though it is on: its input schema is unusable (None: it is usable)."""
    return input_problem(tool) if visible_to_model(tool) else None


def row_text(tool: Tool) -> str:
    """A row: the tool's title and its name, or the name alone."""
    title = tool_title(tool)
    text = f"{title}  ({tool.name})" if title and title != tool.name else tool.name
    if not visible_to_model(tool):
        return printable(text) + "  · app views only"
    return printable(text) + ("  · not offered: unusable schema" if quarantine(tool) else "")


def claims_text(tool: Tool, trusted: bool) -> str:
    """What the server declares about the tool (its annotations), and how much that is worth."""
    claims = ToolHints.of(tool).claims()
    if not claims:
        return "The server declares nothing about what it does (no annotations)."
    said = f"The server declares it {', '.join(claims)}"
    return said + ("." if trusted else " (unverified: you have not marked this server as trusted).")


class ToolsList(QWidget):
    """Checkable rows (on: offered to the model), and the selected tool's details below them."""

    sig_switched = Signal(str, bool)
    """The user switched a tool (its name) on (True) or off (False)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setObjectName("toolsSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.rows = QListWidget()
        self.rows.setObjectName("toolList")
        PlainToolTips(self.rows)  # a row's tooltip is the server's description
        self.rows.setUniformItemSizes(True)
        self.rows.setStyleSheet(f"#toolList::item {{ padding: {SPACE.s}px {SPACE.xs}px; }}")  # rows apart
        self.heading = QLabel()
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        heading_font = self.heading.font()
        heading_font.setBold(True)
        self.heading.setFont(heading_font)
        self.name = self._text_label("muted")
        self.claims = self._text_label()
        self.offered = self._text_label("muted")
        self.description = self._text_label()
        self.description.setObjectName("toolDescription")
        self.schema_button = QPushButton("Show input schema")
        self.schema_button.setObjectName("showSchema")
        self.schema_button.setCheckable(True)
        self.schema_button.toggled.connect(self._show_schema)
        self.schema = QPlainTextEdit()
        self.schema.setObjectName("toolSchema")
        self.schema.setReadOnly(True)
        self.schema.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.schema.setFont(mono)
        self.schema.setMinimumHeight(120)
        self.schema.hide()

        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(4, 4, 4, 4)
        for widget in (self.heading, self.name, self.claims, self.offered, self.description):
            details_layout.addWidget(widget)
        details_layout.addWidget(self.schema_button, 0, Qt.AlignmentFlag.AlignLeft)
        details_layout.addWidget(self.schema, 1)
        details_layout.addStretch(0)
        self.details_area = QScrollArea()
        self.details_area.setWidget(details)
        self.details_area.setWidgetResizable(True)
        self.details_area.setFrameShape(QFrame.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.rows)
        layout.addWidget(self.details_area, 1)

        self._tools: dict[str, Tool] = {}
        self._shown_for: tuple[object, ...] | None = None
        self._trusted = False
        self.rows.currentItemChanged.connect(lambda *_: self._show_current())
        self.rows.itemChanged.connect(self._on_item_changed)
        self._show_current()

    @staticmethod
    def _text_label(role: str = "") -> QLabel:
        label = QLabel()
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        coloured(label, role)
        return label

    def show_tools(
        self, tools: Sequence[Tool] | None, disabled: Collection[str], *, editable: bool, trusted: bool
    ) -> None:
        """List `tools` (None: nothing listed yet), those named in `disabled` switched off.

        Called whenever the panel refreshes: an unchanged listing keeps its rows, selection and scroll.
        """
        key = (None if tools is None else tuple(tools), tuple(sorted(disabled)), editable, trusted)
        if key == self._shown_for:
            return
        self._shown_for = key
        self._trusted = trusted
        current = self.current_name()
        self._tools = {tool.name: tool for tool in tools or ()}
        blocker = QSignalBlocker(self.rows)  # building rows is not the user switching tools
        self.rows.clear()
        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        if editable:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        for tool in tools or ():
            item = QListWidgetItem(row_text(tool))
            item.setData(_NAME_ROLE, tool.name)
            item.setFlags(flags)
            item.setCheckState(Qt.CheckState.Unchecked if tool.name in disabled else Qt.CheckState.Checked)
            item.setToolTip(_shown(tool.description or "") if editable else READ_ONLY_NOTE)
            self.rows.addItem(item)
            if tool.name == current:
                self.rows.setCurrentItem(item)
        blocker.unblock()
        if self.rows.currentItem() is None and self.rows.count():
            self.rows.setCurrentRow(0)
        shown_rows = max(2, min(self.rows.count(), MAX_ROWS))  # the details below get the rest
        self.rows.setFixedHeight(self.rows.sizeHintForRow(0) * shown_rows + 2 * self.rows.frameWidth() + 2)
        self._summarise(tools, disabled, editable)
        self._show_current()

    def _summarise(self, tools: Sequence[Tool] | None, disabled: Collection[str], editable: bool) -> None:
        if tools is None:
            self.summary.setText("Its tools are listed here once it is running.")
            return
        if not tools:
            self.summary.setText("This server offers no tools.")
            return
        off = sum(tool.name in disabled for tool in tools)
        count = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
        if off:
            count += f", {off} switched off: the model is not offered {'it' if off == 1 else 'them'}"
        unusable = sum(tool.name not in disabled and quarantine(tool) is not None for tool in tools)
        if unusable:
            count += (
                f", {unusable} not offered because {'its schema is' if unusable == 1 else 'their schemas are'} unusable"
            )
        hint = "Untick a tool to keep it from the model." if editable else READ_ONLY_NOTE
        self.summary.setText(f"{count}. {hint}")

    def current_name(self) -> str | None:
        item = self.rows.currentItem()
        return None if item is None else str(item.data(_NAME_ROLE))

    def disabled(self) -> list[str]:
        """The names of the tools switched off, in the server's order."""
        items = (self.rows.item(row) for row in range(self.rows.count()))
        return [str(i.data(_NAME_ROLE)) for i in items if i.checkState() == Qt.CheckState.Unchecked]

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        name = str(item.data(_NAME_ROLE))
        on = item.checkState() == Qt.CheckState.Checked
        if self._shown_for is not None:
            tools, _disabled, editable, trusted = self._shown_for
            self._shown_for = (tools, tuple(sorted(self.disabled())), editable, trusted)
        if self.current_name() == name:
            self._show_current()
        self.sig_switched.emit(name, on)

    def _show_current(self) -> None:
        name = self.current_name()
        tool = self._tools.get(name) if name is not None else None
        for widget in (self.heading, self.name, self.claims, self.offered, self.description, self.schema_button):
            widget.setVisible(tool is not None)
        if tool is None:
            self.schema.hide()
            return
        self.heading.setText(printable(tool_title(tool) or tool.name))
        self.name.setText(f"Name: {printable(tool.name)}")
        self.claims.setText(claims_text(tool, self._trusted))
        item = self.rows.currentItem()
        off = item is not None and item.checkState() == Qt.CheckState.Unchecked
        if off:
            offered = "Switched off: never offered to the model, and its app views cannot call it."
        elif not visible_to_model(tool):
            offered = "Only the server's app views can call it; the model is never offered it."
        elif (why := quarantine(tool)) is not None:
            offered = f"Not offered to the model: {printable(why)}."
        else:
            offered = "Offered to the model; every call waits for your approval."
        if (ignored := output_problem(tool)) is not None:
            offered += f" Its output schema is ignored: {printable(ignored)}."
        self.offered.setText(offered)
        self.description.setText(_shown(tool.description or "") or "(no description)")
        self._show_schema(self.schema_button.isChecked())

    def _show_schema(self, shown: bool) -> None:
        self.schema_button.setText("Hide input schema" if shown else "Show input schema")
        name = self.current_name()
        tool = self._tools.get(name) if name is not None else None
        self.schema.setVisible(shown and tool is not None)
        if shown and tool is not None:
            self.schema.setPlainText(_shown(json.dumps(tool.input_schema, indent=2, ensure_ascii=False)))
