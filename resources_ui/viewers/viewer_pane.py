"""One pane that reads a resource and shows it in the viewer its content calls for."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.content import ResourceContent
from desktop_app.core.resource_ref import ResourceRef
from desktop_app.core.server_errors import describe_error
from desktop_app.core.skills.addresses import claimants, linked_from
from resources_ui.viewers.image_viewer import ImageError, decode_image
from resources_ui.viewers.pdf_viewer import PdfError
from resources_ui.viewers.resource_cache import ResourceCache
from resources_ui.viewers.viewer_header import ViewerHeader
from resources_ui.viewers.viewer_kind import ViewerKind as ViewerKind
from resources_ui.viewers.viewer_kind import choose_viewer as choose_viewer
from resources_ui.viewers.viewer_stack import ViewerStack

LOADING_DELAY_MS: Final = 150
"""Fast reads swap content directly; only slow ones flash a "Loading…" page."""

AppViewFactory = Callable[[ResourceRef], QWidget]
"""Makes the live view of an MCP App (`ui://`) resource; the window supplies it (web views live above us)."""


class ResourceViewerPane(QWidget):
    """Header (name, URI, type, size, Attach) over the viewer chosen for the content."""

    attach_requested = Signal(list)
    """list[ResourceRef]: the user pressed Attach for the shown resource."""
    content_shown = Signal(object)
    """ViewerKind: a resource (or an error about it) is now on screen."""
    web_link_requested = Signal(str)
    """str: a web link in a document was clicked (the window asks before opening a browser)."""
    app_released = Signal(QWidget)
    """The app view shown here was taken off (something else is shown now); its owner decides its fate."""
    showing_changed = Signal(bool)  # whether it has something to show (a resource, its loading, its error)
    close_requested = Signal()  # the header's Close: the pane's owner clears it and gives its room back

    def __init__(self, bridge: CoreBridge, cache: ResourceCache | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resourceViewerPane")
        self._bridge = bridge
        self.cache = cache or ResourceCache(bridge, parent=self)
        self.cache.updated.connect(self._on_updated)
        self._ref: ResourceRef | None = None
        self._contents: list[ResourceContent] = []
        self._generation = 0
        self._task: asyncio.Task[None] | None = None
        self._kind = ViewerKind.EMPTY
        self._server_gone = False
        bridge.server_removed.connect(self._on_server_removed)
        bridge.server_state_changed.connect(lambda name, _status: self._on_server_back(name))

        self.header = ViewerHeader()
        self.header.reload_requested.connect(self.reload)
        self.header.attach_requested.connect(self._attach)
        self.header.close_requested.connect(self.close_requested)
        self.header.part_chosen.connect(lambda part: self._spawn_render(part, keep_view=False))
        # The header's parts, as the pane's own: what tests and the window look at.
        self.title, self.meta, self.note = self.header.title, self.header.meta, self.header.note
        self.part_box = self.header.part_box
        self.reload_button, self.attach_button = self.header.reload_button, self.header.attach_button
        self.close_button = self.header.close_button

        self._stack = ViewerStack()
        self._stack.app_released.connect(self.app_released)
        # The pages, as the pane's own: what tests and the window look at.
        self.placeholder, self.loading = self._stack.placeholder, self._stack.loading
        self.app_page = self._stack.app_page
        self.text_viewer, self.markdown_viewer = self._stack.text_viewer, self._stack.markdown_viewer
        self.pdf_viewer, self.image_viewer = self._stack.pdf_viewer, self._stack.image_viewer
        self.binary_card, self.error_card = self._stack.binary_card, self._stack.error_card
        self.markdown_viewer.link_activated.connect(self._follow_link)
        self.markdown_viewer.web_link_requested.connect(self.web_link_requested)
        self.error_card.retry_requested.connect(self.reload)
        self._app_factory: AppViewFactory | None = None
        self._loading_timer = QTimer(self, singleShot=True, interval=LOADING_DELAY_MS)
        self._loading_timer.timeout.connect(lambda: self._switch(ViewerKind.LOADING))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.header)
        layout.addWidget(self._stack, 1)
        self.clear()

    # -- public ----------------------------------------------------------------------------

    @property
    def current_ref(self) -> ResourceRef | None:
        return self._ref

    @property
    def current_kind(self) -> ViewerKind:
        return self._kind

    @property
    def showing(self) -> bool:
        """Whether something is shown (or on its way): an empty pane is not worth a column of the window."""
        return self._ref is not None

    @property
    def loading_now(self) -> bool:
        return self._task is not None and not self._task.done()

    def open(self, ref: ResourceRef) -> None:
        """Read `ref` (through the cache) and show it; keeps it subscribed while shown."""
        if ref == self._ref and (self._contents or self.loading_now):
            return
        if (ref.mime_type or "").startswith("application/pdf"):
            self.pdf_viewer.prepare()  # the PDF engine starts while the resource is read
        self._set_ref(ref)
        self._load(keep_view=False)

    def reload(self) -> None:
        if self._ref is not None and not self._server_gone:
            self.cache.invalidate(self._ref.server, self._ref.uri)
            self._load(keep_view=True)

    def show_contents(self, ref: ResourceRef, contents: list[ResourceContent]) -> None:
        """Show content already in hand (say, a tool result's embedded resource) without a read."""
        self._set_ref(ref)
        self._generation += 1
        self._present(contents, keep_view=False)

    def set_app_factory(self, factory: AppViewFactory | None) -> None:
        """Show MCP App resources live with `factory`; without one their HTML is shown as text."""
        self._app_factory = factory

    @property
    def app_widget(self) -> QWidget | None:
        return self._stack.app

    def show_widget(self, ref: ResourceRef, widget: QWidget) -> None:
        """Show a live app view that lives elsewhere (moved here from a tool card)."""
        self._set_ref(ref)
        self._generation += 1
        self.header.show_uri(ref.uri)
        self._stack.hold_app(widget)
        self._switch(ViewerKind.APP)

    def clear(self) -> None:
        self._set_ref(None)
        self._generation += 1
        self._contents = []
        self.header.show_ref(None)
        self._switch(ViewerKind.EMPTY)

    # -- loading ---------------------------------------------------------------------------

    def _set_ref(self, ref: ResourceRef | None) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._ref is not None and self._ref != ref:
            self.cache.release(self._ref.server, self._ref.uri)
        if ref is not None and ref != self._ref:
            self.cache.retain(ref.server, ref.uri)
        was_showing, self._ref = self._ref is not None, ref
        self._contents = []
        self._server_gone = False
        if ref is not None:
            self.header.show_ref(ref)
        if was_showing != (ref is not None):
            self.showing_changed.emit(ref is not None)

    def _load(self, *, keep_view: bool) -> None:
        ref = self._ref
        if ref is None:
            return
        if self._task is not None:
            self._task.cancel()
        self._generation += 1
        self._loading_timer.start()
        self._task = self._bridge.spawn(self._fetch(ref, self._generation, keep_view), f"Reading {ref.uri}")

    async def _fetch(self, ref: ResourceRef, generation: int, keep_view: bool) -> None:
        try:
            contents = await self.cache.read(ref.server, ref.uri)
        except Exception as exc:
            if generation != self._generation:
                return
            if ref.server not in self._bridge.host.connections:
                self._mark_server_gone()
                self._show_error("This resource's server was removed.", f"“{ref.server}” is no longer configured.")
            else:
                self._show_error("This resource could not be read.", describe_error(exc))
            return
        if generation == self._generation:
            self._present(contents, keep_view=keep_view)

    def _present(self, contents: list[ResourceContent], *, keep_view: bool) -> None:
        part = self.part_box.currentIndex() if keep_view and len(contents) == len(self._contents) else 0
        self._contents = contents
        labels = [
            f"Part {number} of {len(contents)} · {item.mime_essence or 'unknown type'}"
            for number, item in enumerate(contents, start=1)
        ]
        self.header.set_parts(labels, max(0, part))
        if not contents:
            self._show_error("This resource is empty.", "The server returned no content for it.")
            return
        self._spawn_render(max(0, part), keep_view=keep_view)

    def _spawn_render(self, part: int, *, keep_view: bool) -> None:
        if 0 <= part < len(self._contents):
            self._task = self._bridge.spawn(
                self._render(self._contents[part], self._generation, keep_view), "Showing a resource"
            )

    async def _render(self, content: ResourceContent, generation: int, keep_view: bool) -> None:
        kind = choose_viewer(content)
        self._describe(content)
        try:
            if kind is ViewerKind.IMAGE:
                assert content.data is not None
                image = await asyncio.to_thread(decode_image, content.data)
                if generation != self._generation:
                    return
                self.image_viewer.set_image(image)
            elif kind is ViewerKind.PDF:
                assert content.data is not None
                self.pdf_viewer.load(content.data, keep_view=keep_view)
            elif kind is ViewerKind.MARKDOWN:
                assert content.text is not None
                self.markdown_viewer.show_markdown(content.text, content.mime_type, content.uri)
            elif kind is ViewerKind.TEXT:
                assert content.text is not None
                scroll = self.text_viewer.verticalScrollBar().value()
                self.text_viewer.show_text(content.text, content.mime_type, content.uri)
                if keep_view:
                    self.text_viewer.verticalScrollBar().setValue(scroll)
            elif kind is ViewerKind.BINARY:
                self.binary_card.show_content(content)
            elif kind is ViewerKind.APP:
                if self._app_factory is None or self._ref is None:
                    kind = ViewerKind.TEXT
                    self.text_viewer.show_text(content.text or "", "text/html", content.uri)
                else:
                    self._stack.hold_app(self._app_factory(self._ref))
            else:
                self._show_error("The server sent content that cannot be shown.", content.error or "")
                return
        except (PdfError, ImageError) as exc:
            if generation == self._generation:
                self._show_error("This resource cannot be displayed.", str(exc))
            return
        except Exception as exc:  # a viewer failing on odd content must not take the app down
            if generation == self._generation:
                self._show_error("This resource cannot be displayed.", describe_error(exc))
            return
        if generation == self._generation:
            self._switch(kind)

    def _describe(self, content: ResourceContent) -> None:
        self.header.describe(content)
        if not self._server_gone:  # then the note says so, and stays
            self.header.set_note(f"Note: {content.note}." if content.note else None)

    def _show_error(self, heading: str, message: str) -> None:
        self.error_card.show_error(heading, message)
        self._switch(ViewerKind.ERROR)

    def _switch(self, kind: ViewerKind) -> None:
        if kind is not ViewerKind.APP:
            self._stack.release_app()
        if kind is not ViewerKind.LOADING:
            self._loading_timer.stop()
        self._kind = kind
        self._stack.show_page(kind)
        if kind not in (ViewerKind.EMPTY, ViewerKind.LOADING):
            self.content_shown.emit(kind)

    # -- reactions -------------------------------------------------------------------------

    def _on_updated(self, server: str, uri: str) -> None:
        if self._ref is not None and (self._ref.server, self._ref.uri) == (server, uri):
            self._load(keep_view=True)

    def _on_server_removed(self, name: str) -> None:
        """What is shown stays, read-only: nothing is left to reload it from or attach it with."""
        if self._ref is not None and self._ref.server == name:
            if self._task is not None:
                self._task.cancel()
            self._mark_server_gone()
            if self._kind in (ViewerKind.LOADING, ViewerKind.EMPTY):
                self._show_error("This resource's server was removed.", f"“{name}” is no longer configured.")

    def _mark_server_gone(self) -> None:
        assert self._ref is not None
        self._server_gone = True
        self.header.set_actionable(False)
        self.header.set_note(f"Server removed: “{self._ref.server}” is gone, so this cannot be reloaded or attached.")

    def _on_server_back(self, name: str) -> None:
        back = name in self._bridge.host.connections
        if back and self._server_gone and self._ref is not None and self._ref.server == name:
            self._server_gone = False
            self.header.set_actionable(True)
            self.header.set_note(None)

    @property
    def server_gone(self) -> bool:
        """The shown resource's server was removed: the view is read-only."""
        return self._server_gone

    def _attach(self) -> None:
        if self._ref is not None:
            self.attach_requested.emit([self._ref])

    def _follow_link(self, uri: str) -> None:
        catalog = self._bridge.host.catalog
        if self._ref is not None:  # the shown resource's server wrote the link: it reads it unless one other offers it
            server: str | None = linked_from(catalog, uri, self._ref.server)
        else:
            found = claimants(catalog, uri)
            server = found[0] if len(found) == 1 else None
        if server is not None:
            resource = catalog.resource(uri, server)
            name = (resource.title or resource.name) if resource is not None else uri
            self.open(ResourceRef(server, uri, name, resource.mime_type if resource is not None else None))
