"""The resources area ready to embed: browser on the left, template form and viewer on the right."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from desktop_app.ui.bridge import CoreBridge
from resources_ui.browser import ResourceBrowser
from resources_ui.drag_payload import ResourceRef
from resources_ui.template_form import TemplateForm
from resources_ui.tree_model import Entry
from resources_ui.viewers.resource_cache import ResourceCache
from resources_ui.viewers.viewer_pane import ResourceViewerPane


class ResourceWorkspace(QSplitter):
    """Wires the browser to the viewer and the template form; re-emits every attach request."""

    attach_requested = Signal(list)
    """list[ResourceRef] from the browser, the viewer's Attach button or the template form."""

    def __init__(self, bridge: CoreBridge, cache: ResourceCache | None = None, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("resourceWorkspace")
        self.cache = cache or ResourceCache(bridge, parent=self)
        self.browser = ResourceBrowser(bridge)
        self.template_form = TemplateForm(bridge)
        self.template_form.hide()
        self.viewer = ResourceViewerPane(bridge, self.cache)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.template_form)
        column.addWidget(self.viewer, 1)
        self.addWidget(self.browser)
        self.addWidget(right)
        self.setStretchFactor(0, 2)
        self.setStretchFactor(1, 3)
        self.setSizes([520, 780])

        self.browser.open_requested.connect(self.open_resource)
        self.browser.template_requested.connect(self.open_template)
        self.template_form.open_requested.connect(self.viewer.open)
        for source in (self.browser, self.viewer, self.template_form):
            source.attach_requested.connect(self.attach_requested)

    def open_resource(self, ref: ResourceRef) -> None:
        self.template_form.hide()
        self.viewer.open(ref)

    def open_template(self, entry: Entry) -> None:
        self.template_form.set_template(entry)
        self.template_form.show()
        self.viewer.clear()
