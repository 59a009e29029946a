"""The resources area wired together: a browser, and a detail pane (template form over viewer).

The two halves are separate widgets so the window can dock them apart (browser on the left,
viewer on the right); this object only owns the wiring between them.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop_app.bridge import CoreBridge
from desktop_app.core.resource_ref import ResourceRef
from resources_ui.browser import ResourceBrowser
from resources_ui.template_form import TemplateForm
from resources_ui.tree_entries import Entry
from resources_ui.viewers.resource_cache import ResourceCache
from resources_ui.viewers.viewer_pane import ResourceViewerPane


class ResourceWorkspace(QObject):
    """Wires the browser to the viewer and the template form; re-emits every attach request."""

    attach_requested = Signal(list)
    """list[ResourceRef] from the browser, the viewer's Attach button or the template form."""
    web_link_requested = Signal(str)
    """str: a web link in a shown document was clicked."""
    occupied_changed = Signal(bool)
    """bool: whether the detail pane shows something (a resource, or a template's form) or nothing at all;
    the window gives an empty detail pane's room to the chat."""

    def __init__(self, bridge: CoreBridge, cache: ResourceCache | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cache = cache or ResourceCache(bridge, parent=self)
        self.browser = ResourceBrowser(bridge)
        self.template_form = TemplateForm(bridge)
        self.template_form.hide()
        self.viewer = ResourceViewerPane(bridge, self.cache)
        self.detail = QWidget()
        self.detail.setObjectName("resourceDetail")
        column = QVBoxLayout(self.detail)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.template_form)
        column.addWidget(self.viewer, 1)

        self.browser.open_requested.connect(self.open_resource)
        self.browser.template_requested.connect(self.open_template)
        self.template_form.open_requested.connect(self.viewer.open)
        self.viewer.web_link_requested.connect(self.web_link_requested)
        self.viewer.close_requested.connect(self.close_detail)
        self.viewer.showing_changed.connect(lambda _showing: self._tell_occupied())
        self._occupied = False
        bridge.server_removed.connect(self._on_server_removed)
        for source in (self.browser, self.viewer, self.template_form):
            source.attach_requested.connect(self.attach_requested)

    @property
    def occupied(self) -> bool:
        """Whether the detail pane shows something: a resource (or its loading or error), or a template's form."""
        return self.viewer.showing or not self.template_form.isHidden()

    def _tell_occupied(self) -> None:
        if self.occupied != self._occupied:
            self._occupied = self.occupied
            self.occupied_changed.emit(self._occupied)

    def open_resource(self, ref: ResourceRef) -> None:
        self.template_form.hide()
        self.viewer.open(ref)
        self._tell_occupied()

    def close_detail(self) -> None:
        """Close what the detail pane shows (the viewer's Close). The tree's row is let go too, so one
        click on it opens it again (a click on the current row previews nothing)."""
        self.template_form.hide()
        self.viewer.clear()
        selection = self.browser.view.selectionModel()
        selection.clearSelection()
        selection.clearCurrentIndex()
        self._tell_occupied()

    def _on_server_removed(self, name: str) -> None:
        """A template form of a server that left could only fail: it goes (the viewer keeps what it shows)."""
        entry = self.template_form.entry
        if entry is not None and entry.server == name:
            self.template_form.hide()
            self._tell_occupied()

    def open_template(self, entry: Entry) -> None:
        self.template_form.set_template(entry)
        self.template_form.show()
        self.viewer.clear()
        self.viewer.close_button.show()  # the form can be closed like a resource
        self._tell_occupied()
