"""The page inside one MCP App view: served on its server's origin, with the bridge in a world of its own.

`open_page` registers the view's document with its server's scheme handler and request guard and
builds the web view whose page frames it; `release_page` takes both back. The frame around it
(`app_view`) decides where the page is shown and what replaces it when it stops.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView

from desktop_app.core.apps.document import AppDocument
from desktop_app.ui.apps.guard import AppPage
from desktop_app.ui.apps.profiles import server_web
from desktop_app.ui.apps.serving import CHANNEL_OBJECT, ServedView, ViewChannel


def open_page(
    server: str,
    view_id: str,
    document: AppDocument,
    channel: ViewChannel,
    ask: Callable[[str], Awaitable[bool]],
    background: QColor,
) -> tuple[QWebEngineView, AppPage, str]:
    """The view's web view, its page (not loaded yet) and the address to load, on `server`'s origin."""
    web = server_web(server)
    served = ServedView(view_id, web.origin, document)
    web.handler.add(served)
    web.guard.allow(view_id, document.meta.csp.fetchable)
    view = QWebEngineView()
    page = _make_page(web.profile, served, document, ask, view)
    page.setBackgroundColor(background)
    web_channel = QWebChannel(page)
    web_channel.registerObject(CHANNEL_OBJECT, channel)
    page.setWebChannel(web_channel, QWebEngineScript.ScriptWorldId.ApplicationWorld)
    view.setPage(page)
    return view, page, served.host_url


def release_page(server: str, view_id: str) -> None:
    """Forget the view's document and its allowed origins (its web view is deleted by the frame)."""
    web = server_web(server)
    web.handler.forget(view_id)
    web.guard.forget(view_id)


def has_painted(web: QWebEngineView | None) -> bool:
    """Whether the page shows anything but its background yet (a cheap sample of a grab)."""
    if web is None or not web.isVisible():
        return False
    image = web.grab().toImage()
    if image.isNull() or image.width() < 4 or image.height() < 4:
        return False
    first = image.pixel(0, 0)
    step_x, step_y = max(1, image.width() // 40), max(1, image.height() // 40)
    return any(
        image.pixel(x, y) != first for y in range(0, image.height(), step_y) for x in range(0, image.width(), step_x)
    )


def _make_page(
    profile: QWebEngineProfile,
    served: ServedView,
    document: AppDocument,
    ask: Callable[[str], Awaitable[bool]],
    parent: QObject,
) -> AppPage:
    """The page with the bridge script in its isolated world (main frame only, never the view's)."""
    page = AppPage(
        profile,
        served.host_url,
        served.view_url,
        document.meta.csp.frame,
        document.meta.permissions,
        ask,
        parent,
    )
    script = QWebEngineScript()
    script.setName("mcp-desk-bridge")
    script.setSourceCode(served.bridge_script())
    script.setWorldId(QWebEngineScript.ScriptWorldId.ApplicationWorld)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentReady)
    script.setRunsOnSubFrames(False)
    page.scripts().insert(script)
    return page
