"""A read-only tree of everything the connected servers offer."""

from __future__ import annotations

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from desktop_app.core.catalog import ServerCatalog
from desktop_app.core.content import human_size
from desktop_app.ui.bridge import CoreBridge


class CatalogOverview(QTreeWidget):
    """Server → resources, templates, prompts, tools; rebuilt per server as catalogs change."""

    def __init__(self, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("catalogOverview")
        self.setColumnCount(3)
        self.setHeaderLabels(["Name", "URI / detail", "Type"])
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self._servers: dict[str, QTreeWidgetItem] = {}
        bridge.catalog_changed.connect(self._on_catalog)
        for name, snapshot in bridge.host.catalog.servers.items():
            self._on_catalog(name, snapshot)

    def _on_catalog(self, name: str, catalog: ServerCatalog | None) -> None:
        old = self._servers.pop(name, None)
        if old is not None:
            self.takeTopLevelItem(self.indexOfTopLevelItem(old))
        if catalog is None:
            return
        root = QTreeWidgetItem([name, catalog.server_info.name if catalog.server_info else "", "server"])
        self._servers[name] = root
        self.addTopLevelItem(root)
        for resource in catalog.resources:
            size = f", {human_size(resource.size)}" if resource.size is not None else ""
            item = QTreeWidgetItem([resource.title or resource.name, resource.uri, f"{resource.mime_type or ''}{size}"])
            item.setToolTip(0, resource.description or "")
            root.addChild(item)
        for template in catalog.templates:
            item = QTreeWidgetItem([template.title or template.name, template.uri_template, "template"])
            item.setToolTip(0, template.description or "")
            root.addChild(item)
        for prompt in catalog.prompts:
            args = ", ".join(a.name + ("" if a.required else "?") for a in prompt.arguments or [])
            item = QTreeWidgetItem([prompt.title or prompt.name, f"({args})", "prompt"])
            item.setToolTip(0, prompt.description or "")
            root.addChild(item)
        for tool in catalog.tools:
            item = QTreeWidgetItem([tool.title or tool.name, tool.description or "", "tool"])
            item.setToolTip(0, tool.description or "")
            root.addChild(item)
        root.setExpanded(True)
        for column in range(3):
            self.resizeColumnToContents(column)
