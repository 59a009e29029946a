"""A server's prompt title and description are its own words: the form shows them as text, never as markup."""

from __future__ import annotations

from mcp_types import Prompt
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_app.bridge import CoreBridge
from desktop_app.core.host import ServerHost
from desktop_app.ui.chat.prompt_form import PromptForm

IMAGE = '<img src="http://127.0.0.1:1/tracker.png">'


def test_a_hostile_title_and_description_are_shown_as_inert_text(qapp: QApplication) -> None:
    form = PromptForm(CoreBridge(ServerHost()))
    title = f"<b>Urgent</b>{IMAGE}\u202eevil"
    form.open_for(f"srv{IMAGE}", Prompt(name="p", title=title, description=f"<i>desc</i>{IMAGE}"))
    heading = form.heading.text()
    assert "<img" not in heading and "&lt;img" in heading  # the title and the server name escaped
    assert "\u202e" not in heading  # a bidi override cannot reorder what the user reads
    assert form.description.textFormat() is Qt.TextFormat.PlainText
    assert form.description.text() == f"<i>desc</i>{IMAGE}"  # shown exactly, as characters
