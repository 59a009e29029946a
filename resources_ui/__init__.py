"""The user's half of MCP resources: browse every server's offer, view content natively, attach it.

All Qt; data comes from the Qt-free core through `desktop_app.bridge.CoreBridge`.
"""

from resources_ui.browser import ResourceBrowser
from resources_ui.drag_payload import RESOURCES_MIME, ResourceRef, decode_resources, encode_resources
from resources_ui.template_form import TemplateForm
from resources_ui.tree_entries import Entry, EntryKind
from resources_ui.viewers.resource_cache import ResourceCache
from resources_ui.viewers.viewer_pane import ResourceViewerPane, ViewerKind
from resources_ui.workspace import ResourceWorkspace

__all__ = [
    "RESOURCES_MIME",
    "Entry",
    "EntryKind",
    "ResourceBrowser",
    "ResourceCache",
    "ResourceRef",
    "ResourceViewerPane",
    "ResourceWorkspace",
    "TemplateForm",
    "ViewerKind",
    "decode_resources",
    "encode_resources",
]
