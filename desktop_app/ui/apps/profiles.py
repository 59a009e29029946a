"""One off-the-record web profile per server: its views share nothing with another server's.

A profile holds the server's scheme handler (which serves only that server's views) and its
request interceptor. Nothing is written to disk: no cache, no cookies, no remembered permissions.
Profiles live until `shut_down`, which the app (and the self-test) call after the last view has gone.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest, QWebEngineProfile, QWebEngineSettings

from desktop_app.ui.apps.guard import RequestGuard
from desktop_app.ui.apps.serving import AppSchemeHandler
from desktop_app.ui.apps.web_engine import HOST_SCHEME, VIEW_SCHEME, ensure_ready, server_origin
from desktop_app.ui.apps.webrtc_off import remove_webrtc

_OFF = (
    QWebEngineSettings.WebAttribute.LocalStorageEnabled,
    QWebEngineSettings.WebAttribute.PluginsEnabled,
    QWebEngineSettings.WebAttribute.JavascriptCanOpenWindows,
    QWebEngineSettings.WebAttribute.JavascriptCanAccessClipboard,
    QWebEngineSettings.WebAttribute.JavascriptCanPaste,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessRemoteUrls,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessFileUrls,
    QWebEngineSettings.WebAttribute.AllowRunningInsecureContent,
    QWebEngineSettings.WebAttribute.AllowGeolocationOnInsecureOrigins,
    QWebEngineSettings.WebAttribute.AllowWindowActivationFromJavaScript,
    QWebEngineSettings.WebAttribute.FullScreenSupportEnabled,
    QWebEngineSettings.WebAttribute.ScreenCaptureEnabled,
    QWebEngineSettings.WebAttribute.HyperlinkAuditingEnabled,
    QWebEngineSettings.WebAttribute.DnsPrefetchEnabled,
    QWebEngineSettings.WebAttribute.NavigateOnDropEnabled,
    QWebEngineSettings.WebAttribute.PdfViewerEnabled,
    QWebEngineSettings.WebAttribute.AutoLoadIconsForPage,
    QWebEngineSettings.WebAttribute.TouchIconsEnabled,
    QWebEngineSettings.WebAttribute.ErrorPageEnabled,
    QWebEngineSettings.WebAttribute.FocusOnNavigationEnabled,
)


class ServerWeb:
    """A server's profile with its handler and guard."""

    def __init__(self, server: str) -> None:
        ensure_ready()
        self.server = server
        self.origin = server_origin(server)
        self.profile = QWebEngineProfile(QCoreApplication.instance())  # no storage name: off the record
        self.profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
        self.profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
        self.profile.setPersistentPermissionsPolicy(QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime)
        self.profile.setSpellCheckEnabled(False)
        self.profile.downloadRequested.connect(_refuse_download)
        settings = self.profile.settings()
        for attribute in _OFF:
            settings.setAttribute(attribute, False)
        settings.setAttribute(QWebEngineSettings.WebAttribute.WebRTCPublicInterfacesOnly, True)
        settings.setAttribute(QWebEngineSettings.WebAttribute.PlaybackRequiresUserGesture, True)
        remove_webrtc(self.profile)
        self.handler = AppSchemeHandler(self.origin, self.profile)
        self.guard = RequestGuard(self.origin, self.profile)
        for scheme in (HOST_SCHEME, VIEW_SCHEME):
            self.profile.installUrlSchemeHandler(scheme.encode("ascii"), self.handler)
        self.profile.setUrlRequestInterceptor(self.guard)


def _refuse_download(download: QWebEngineDownloadRequest) -> None:
    download.cancel()


_profiles: dict[str, ServerWeb] = {}


def server_web(server: str) -> ServerWeb:
    """The server's profile, made on first use."""
    web = _profiles.get(server)
    if web is None:
        web = _profiles[server] = ServerWeb(server)
    return web


def shut_down() -> None:
    """Release every profile, after the pages already let go (a page must never outlive its profile)."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # views and pages deleted with deleteLater
    for web in _profiles.values():
        web.profile.deleteLater()
    _profiles.clear()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
