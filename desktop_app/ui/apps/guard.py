"""What a view's page may load, where it may go, and which devices it may use.

Three layers stand behind the view's CSP, and the network relay (`core.apps.relay`) behind them
all: the profile's request interceptor refuses any request to an origin the view did not declare
(prefetches, redirects and self-navigation included), the page refuses every navigation but the
view's own first load and every new window, and device or clipboard permissions are asked of the
user for each use, undeclared ones refused without asking.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEnginePermission,
    QWebEngineProfile,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)

from desktop_app.core.apps.notices import console_notice
from desktop_app.core.extensions.apps_csp import origin_allowed
from desktop_app.ui.apps.web_engine import HOST_SCHEME, VIEW_SCHEME, view_relay

log = logging.getLogger(__name__)

_PASS_THROUGH: Final = frozenset({"data", "blob", "about"})
_PERMISSIONS: Final = {
    QWebEnginePermission.PermissionType.MediaAudioCapture: ("microphone", ("microphone",)),
    QWebEnginePermission.PermissionType.MediaVideoCapture: ("camera", ("camera",)),
    QWebEnginePermission.PermissionType.MediaAudioVideoCapture: ("camera+microphone", ("camera", "microphone")),
    QWebEnginePermission.PermissionType.Geolocation: ("geolocation", ("geolocation",)),
    QWebEnginePermission.PermissionType.ClipboardReadWrite: ("clipboard", ("clipboardWrite",)),
}
"""Browser permission → (what the user is asked about, the `_meta.ui.permissions` it needs declared)."""


class RequestGuard(QWebEngineUrlRequestInterceptor):
    """One server's interceptor: each view may reach its own documents and its declared origins."""

    sig_blocked = Signal(str, str)
    """view id, URL: a request was refused."""

    def __init__(self, origin: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.origin = origin
        self._allowed: dict[str, tuple[str, ...]] = {}

    def allow(self, view_id: str, origins: tuple[str, ...]) -> None:
        """The view may load from `origins`; so may the relay connect (for as long as the view is open)."""
        self._allowed[view_id] = origins
        view_relay().allow(f"{self.origin}/{view_id}", origins)

    def forget(self, view_id: str) -> None:
        self._allowed.pop(view_id, None)
        view_relay().forget(f"{self.origin}/{view_id}")

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        scheme = url.scheme()
        if scheme in _PASS_THROUGH:
            return
        if scheme in (HOST_SCHEME, VIEW_SCHEME):
            if url.host() != self.origin:
                info.block(True)
            return
        top = info.firstPartyUrl()
        view_id = top.path().lstrip("/") if top.scheme() == HOST_SCHEME and top.host() == self.origin else ""
        if origin_allowed(url.toString(), self._allowed.get(view_id, ())):
            return
        info.block(True)
        self.sig_blocked.emit(view_id, url.toString(QUrl.ComponentFormattingOption.FullyEncoded))


class AppPage(QWebEnginePage):
    """A view's page: only its own documents load, nothing opens, permissions go to the user."""

    sig_notice = Signal(str)
    """Something the view tried was refused; one line for the user (and the server's log)."""
    sig_console = Signal(str)
    """A line the view wrote to the JavaScript console (kept in the server's log)."""

    def __init__(
        self,
        profile: QWebEngineProfile,
        host_url: str,
        view_url: str,
        frame_origins: tuple[str, ...],
        declared_permissions: tuple[str, ...],
        ask_permission: Callable[[str], Awaitable[bool]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(profile, parent)
        self._host_url = QUrl(host_url)
        self._view_url = QUrl(view_url)
        self._frame_origins = frame_origins
        self._declared = declared_permissions
        self._ask_permission = ask_permission
        self._host_loaded = False
        self._view_loaded = False
        self._asks: set[asyncio.Task[None]] = set()
        self.permissionRequested.connect(self._on_permission)

    def acceptNavigationRequest(self, url: QUrl | str, type: QWebEnginePage.NavigationType, isMainFrame: bool) -> bool:
        url = QUrl(url)
        if isMainFrame:
            if url == self._host_url and not self._host_loaded:
                self._host_loaded = True
                return True
            self.sig_notice.emit(f"Blocked navigating the app away to {url.toDisplayString()}.")
            return False
        if url == self._view_url and not self._view_loaded:
            self._view_loaded = True
            return True
        if url.scheme() in ("http", "https") and origin_allowed(url.toString(), self._frame_origins):
            return True  # a nested frame the view declared (frameDomains)
        self.sig_notice.emit(f"Blocked the app's frame from loading {url.toDisplayString()}.")
        return False

    def createWindow(self, type: QWebEnginePage.WebWindowType) -> QWebEnginePage | None:  # type: ignore[override]
        self.sig_notice.emit("Blocked a new window: apps cannot open windows.")
        return None

    def javaScriptConsoleMessage(
        self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str, lineNumber: int, sourceID: str
    ) -> None:
        self.sig_console.emit(f"console {level.name.removesuffix('MessageLevel').lower()}: {message[:500]}")
        if (notice := console_notice(message)) is not None:
            self.sig_notice.emit(notice)

    def _on_permission(self, permission: QWebEnginePermission) -> None:
        wanted = _PERMISSIONS.get(permission.permissionType())
        if wanted is None:
            permission.deny()
            self.sig_notice.emit("Refused a browser permission apps cannot have.")
            return
        what, needs = wanted
        if not all(name in self._declared for name in needs):
            permission.deny()
            self.sig_notice.emit(f"Refused {what}: the app did not declare it needs it.")
            return
        task = asyncio.ensure_future(self._ask(permission, what))
        self._asks.add(task)
        task.add_done_callback(self._asks.discard)

    async def _ask(self, permission: QWebEnginePermission, what: str) -> None:
        try:
            allowed = await self._ask_permission(what)
        except Exception:
            log.warning("asking for %s failed", what, exc_info=True)
            allowed = False
        if not permission.isValid():
            return  # the page went away while the user was deciding
        if allowed:
            permission.grant()
            if permission.permissionType() is not QWebEnginePermission.PermissionType.Geolocation:
                # The yes was for this use: the engine keeps a device's yes for the page's life,
                # and the view's next use would go unasked. Forgetting it ends no use already
                # granted; a forgotten location would stop at once, so that one lasts until the
                # view closes (as its card says).
                permission.reset()
        else:
            permission.deny()
            self.sig_notice.emit(f"Refused {what}: you did not allow it.")
