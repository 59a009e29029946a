"""Driving the real viewer pane: open a resource and wait for what it shows."""

from __future__ import annotations

from desktop_app.core.resource_ref import ResourceRef
from resources_ui.viewers.viewer_pane import ResourceViewerPane, ViewerKind
from tests.hosting import eventually


async def show(pane: ResourceViewerPane, server: str, uri: str) -> ViewerKind:
    """Open a resource and wait until its viewer (or an error) is on screen."""
    shown: list[ViewerKind] = []
    pane.content_shown.connect(shown.append)
    pane.open(ResourceRef(server, uri, uri))
    await eventually(lambda: shown, what=f"{uri} shown")
    pane.content_shown.disconnect(shown.append)
    return shown[-1]
