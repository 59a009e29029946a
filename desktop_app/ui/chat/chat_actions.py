"""What the user does around the conversation: new chats, sending, attachments, prompts, the command
palette, and opening in the viewer what a message links to."""

from __future__ import annotations

from functools import partial

from PySide6.QtWidgets import QDockWidget, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.prompts import prompt_draft
from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_errors import describe_error
from desktop_app.ui.chat.chat_controller import ChatController
from desktop_app.ui.chat.palette import CommandPalette, PaletteEntry, prompt_entries, skill_entries
from desktop_app.ui.chat.prompt_form import PromptForm
from desktop_app.ui.conversation.composer import Composer
from desktop_app.ui.conversation.conversation_view import ConversationView
from resources_ui.workspace import ResourceWorkspace


class ChatActions:
    """The conversation's commands; `palette_commands` adds the window's other commands to the palette."""

    def __init__(
        self,
        bridge: CoreBridge,
        chat: ChatController,
        conversation: ConversationView,
        composer: Composer,
        prompt_form: PromptForm,
        palette: CommandPalette,
        resources: ResourceWorkspace,
        viewer_dock: QDockWidget,
        palette_commands: list[PaletteEntry],
    ) -> None:
        self._bridge = bridge
        self._chat = chat
        self._conversation = conversation
        self._composer = composer
        self._prompt_form = prompt_form
        self._palette = palette
        self._resources = resources
        self._viewer_dock = viewer_dock
        self._palette_commands = palette_commands

    def new_chat(self) -> None:
        self._chat.new_chat()
        self._prompt_form.hide()
        if self._composer.prompt_origin is not None:
            self._composer.clear()  # a prompt's draft belongs to the chat it was picked in
        self._composer.editor.setFocus()

    def send(self, text: str, refs: list[ResourceRef]) -> None:
        sent = self._chat.resend("edit", text, refs) if self._composer.editing else self._chat.send(text, refs)
        if sent:
            self._composer.clear()

    def edit_last(self) -> None:
        """The last message into the composer, to change and send again in its place."""
        last = self._chat.last_message()
        if last is not None and not self._chat.busy:
            self._composer.set_editing(*last)

    def restore_draft(self, text: str, refs: list[ResourceRef]) -> None:
        if not self._composer.editor.toPlainText():
            self._composer.editor.setPlainText(text)
        self._composer.attach(refs)

    def attach(self, refs: list[ResourceRef]) -> None:
        self._composer.attach(refs)
        self._composer.editor.setFocus()

    def open_resource(self, ref: ResourceRef) -> None:
        self._show_viewer()
        self._resources.open_resource(ref)

    def _show_viewer(self) -> None:
        """The viewer on screen, in front of the tabs it shares in a narrow window."""
        self._viewer_dock.show()
        self._viewer_dock.raise_()

    def show_app(self, ref: ResourceRef, view: QWidget) -> None:
        self._show_viewer()
        self._resources.viewer.show_widget(ref, view)

    def show_content(self, content: ResourceContent) -> None:
        self._show_viewer()
        ref = ResourceRef("", content.uri or "tool result", content.uri or "tool result", content.mime_type)
        self._resources.viewer.show_contents(ref, [content])

    def open_palette(self) -> None:
        entries = [PaletteEntry("command", "New chat", "Start an empty conversation", self.new_chat)]
        entries += self._palette_commands
        for name in self._bridge.host.connections:
            restart = partial(self._bridge.restart_server, name)
            entries.append(PaletteEntry("command", f"Reconnect {name}", "Restart this server", restart))
        entries += prompt_entries(self._bridge.host.catalog, self._prompt_form.open_for)
        entries += skill_entries(self._bridge.host.catalog, self.attach)
        self._palette.open_with(entries)

    def use_prompt(self, server: str, name: str, arguments: dict[str, str]) -> None:
        self._bridge.spawn(self._fetch_prompt(server, name, arguments), f"Getting prompt {name}")

    async def _fetch_prompt(self, server: str, name: str, arguments: dict[str, str]) -> None:
        try:
            result = await self._bridge.host.connection(server).get_prompt(name, arguments)
        except Exception as exc:
            self._conversation.add_message("notice", f"Prompt {name} from {server} failed: {describe_error(exc)}")
            return
        catalog = self._bridge.host.catalog
        prompt = next((p for s, p in catalog.prompts() if s == server and p.name == name), None)
        title = (prompt.title if prompt is not None else None) or name
        draft = prompt_draft(result, server, name, catalog)
        self._chat.insert_prompt(draft, title)
        refs = [ResourceRef(link.server, link.uri, link.name, link.mime_type) for link in draft.links]
        self._composer.set_prompt_draft(f"“{title}” from {server}", draft.text, refs)
        self._composer.editor.setFocus()
