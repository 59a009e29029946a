"""Keeps the empty chat's first steps in line with the servers, and does what a suggestion asks.

A prompt opens its form as the palette does, a resource is attached as a drop attaches it (with the
server that listed it), a question is typed into the composer. None of them sends anything: the user
does, with Send.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QObject
from PySide6.QtGui import QTextCursor

from desktop_app.bridge import CoreBridge
from desktop_app.core.server_status import ServerState, ServerStatus
from desktop_app.ui.chat.prompt_form import PromptForm
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.first_steps import FirstSteps, Suggestion, suggestions

CONNECTING: Final = frozenset({ServerState.STARTING, ServerState.RESTARTING, ServerState.SIGNING_IN})


class FirstStepsOffer(QObject):
    """Fills `steps` from the bridge's catalog as servers come and go; a click goes to `composer` or `form`."""

    def __init__(self, bridge: CoreBridge, steps: FirstSteps, composer: Composer, form: PromptForm) -> None:
        super().__init__(steps)
        self._bridge = bridge
        self._steps = steps
        self._composer = composer
        self._form = form
        steps.chosen.connect(self.take)
        bridge.catalog_changed.connect(self.update)
        bridge.server_state_changed.connect(self.update)
        bridge.server_removed.connect(self.update)
        self.update()

    def update(self, *_: str | ServerStatus | object) -> None:
        """Suggest from what is connected now."""
        host = self._bridge.host
        connecting = any(connection.status.state in CONNECTING for connection in host.connections.values())
        offered = suggestions(host.catalog)
        self._steps.show_suggestions(offered, connecting=connecting, connected=bool(host.catalog.servers))

    def take(self, suggestion: Suggestion) -> None:
        """Do what `suggestion` offers, up to where the user decides: nothing is sent."""
        if suggestion.prompt is not None:
            self._form.open_for(suggestion.server, suggestion.prompt)  # as picking it in the palette
        elif suggestion.ref is not None:
            self._composer.attach([suggestion.ref])  # as dropping it on the conversation
            self._composer.editor.setFocus()
        elif suggestion.text:
            self._type(suggestion.text)

    def _type(self, text: str) -> None:
        """`text` at the end of the message being written (after what is there, on a line of its own)."""
        editor = self._composer.editor
        cursor = editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(f"\n{text}" if editor.toPlainText().strip() else text)  # undoable, unlike setPlainText
        editor.setTextCursor(cursor)
        editor.setFocus()
