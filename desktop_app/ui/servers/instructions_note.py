"""The Servers panel's line saying what the model gets of a server's `instructions`.

A trusted server's instructions go to the model with every message; an untrusted server's are
left out, and the model reading them marks its chat (see `core/chat/server_instructions.py`).
The user sees which, and the instructions themselves in the tooltip, as the plain text they are.
"""

from __future__ import annotations

import html
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.chat.server_instructions import InstructionsUse, instructions_use

SAYS: Final = {
    InstructionsUse.SENT: "Its instructions to the model go with every message, as you trust this server.",
    InstructionsUse.ON_REQUEST: (
        "Its instructions to the model are left out, as you have not marked it as trusted; if the model "
        "reads them, its chat counts as holding untrusted content."
    ),
}


class InstructionsNote(QLabel):
    """One wrapped line under a server's offer; hidden when the server gives no instructions."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverInstructions")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.use = InstructionsUse.NONE
        self.hide()

    def show_for(self, catalog: ServerCatalog | None, trusted: bool) -> None:
        self.use = instructions_use(catalog, trusted)
        if catalog is None or self.use is InstructionsUse.NONE:
            self.clear()
            self.setToolTip("")
            self.hide()
            return
        self.setText(SAYS[self.use])
        # The server's own words: escaped, so Qt never takes them for markup to draw.
        said = html.escape(f"What the server tells the model:\n\n{catalog.instructions}")
        self.setToolTip(f'<p style="white-space:pre-wrap">{said}</p>')
        self.show()
