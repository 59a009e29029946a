"""Serving a server's views: the framing host page, the view's document with its CSP, the bridge.

Each view has two URLs on its server's own origins: `mcp-app-host://<origin>/<id>` is a page with
no script of its own (its CSP forbids any) that frames `mcp-app://<origin>/<id>` in an
`<iframe sandbox="allow-scripts">`: the view runs at an opaque origin, can reach nothing but what
its CSP declares, and talks only through `postMessage` (see `ServedView.sandbox` for the one case
that adds `allow-same-origin`). The host page's bridge script runs in an
isolated JavaScript world the framed view cannot see, and forwards messages as text to Python.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import cache
from typing import Final

from PySide6.QtCore import QBuffer, QByteArray, QFile, QIODevice, QObject, Signal, Slot
from PySide6.QtWebEngineCore import QWebEngineUrlRequestJob, QWebEngineUrlSchemeHandler

from desktop_app.core.apps.document import AppDocument
from desktop_app.core.apps.protocol import MAX_MESSAGE_CHARS
from desktop_app.ui.apps.web_engine import HOST_SCHEME, VIEW_SCHEME

log = logging.getLogger(__name__)

CHANNEL_OBJECT: Final = "mcpDeskHost"
PERMISSION_POLICY: Final = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
_HOST_PAGE: Final = (
    '<!doctype html><html><head><meta charset="utf-8"><title>MCP App</title><style>'
    "html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}"
    "iframe{border:0;display:block;width:100%;height:100%}"
    "</style></head><body></body></html>"
)
# Runs in the host page's isolated world (never in the view): frames the view once the channel is up,
# forwards the view's messages as JSON text and delivers the host's.
_BRIDGE_SCRIPT: Final = """
(function () {
  "use strict";
  const config = %s;
  if (location.href !== config.host || window.__mcpDeskBridge) return;
  window.__mcpDeskBridge = true;
  new QWebChannel(qt.webChannelTransport, function (channel) {
    const host = channel.objects.%s;
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", config.sandbox);
    if (config.allow) frame.setAttribute("allow", config.allow);
    frame.setAttribute("title", config.title);
    window.addEventListener("message", function (event) {
      if (event.source !== frame.contentWindow) return;
      let text;
      try { text = JSON.stringify(event.data); } catch (error) { text = "<not serializable>"; }
      if (typeof text !== "string") text = "null";
      if (text.length > config.maxChars) { host.oversize(text.length); return; }
      host.fromView(text);
    });
    host.toView.connect(function (text) {
      if (frame.contentWindow) frame.contentWindow.postMessage(JSON.parse(text), "*");
    });
    frame.src = config.view;
    document.body.appendChild(frame);
  });
})();
"""


@cache
def _qwebchannel_js() -> str:
    source = QFile(":/qtwebchannel/qwebchannel.js")
    if not source.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError("QtWebChannel's qwebchannel.js is missing from this installation")
    return bytes(source.readAll().data()).decode("utf-8")


@dataclass(frozen=True)
class ServedView:
    """What one view id serves: its document and the URLs both frames load."""

    view_id: str
    origin: str
    document: AppDocument

    @property
    def host_url(self) -> str:
        return f"{HOST_SCHEME}://{self.origin}/{self.view_id}"

    @property
    def view_url(self) -> str:
        return f"{VIEW_SCHEME}://{self.origin}/{self.view_id}"

    @property
    def sandbox(self) -> str:
        """`allow-scripts` only: an opaque origin that can reach nothing, not even its own storage.

        Chromium refuses every permission to an opaque origin without asking anyone, so a view that
        declares `_meta.ui.permissions` also gets `allow-same-origin`: its origin is then its own
        `mcp-app://<server>` one, still foreign to the host page (which it therefore cannot touch),
        and each use of a declared permission is asked of the user.
        """
        return "allow-scripts allow-same-origin" if self.document.meta.permissions else "allow-scripts"

    @property
    def allow(self) -> str:
        """The iframe's Permission Policy: only what the resource declared (each use is still asked)."""
        return "; ".join(PERMISSION_POLICY[name] for name in self.document.meta.permissions)

    def bridge_script(self) -> str:
        config = {
            "host": self.host_url,
            "view": self.view_url,
            "allow": self.allow,
            "sandbox": self.sandbox,
            "title": self.document.uri,
            "maxChars": MAX_MESSAGE_CHARS,
        }
        return _qwebchannel_js() + _BRIDGE_SCRIPT % (json.dumps(config), CHANNEL_OBJECT)


class ViewChannel(QObject):
    """The object the bridge script sees: text in from the view, text out to it. Nothing else."""

    toView = Signal(str)  # named for the JavaScript side
    """A JSON-RPC message for the view."""
    sig_received = Signal(str)
    """The view sent this JSON text (not yet parsed, not yet trusted)."""
    sig_oversize = Signal(int)
    """The view sent a message too long to forward; carries its length."""

    @Slot(str)
    def fromView(self, text: str) -> None:
        self.sig_received.emit(text)

    @Slot(int)
    def oversize(self, length: int) -> None:
        self.sig_oversize.emit(length)


class AppSchemeHandler(QWebEngineUrlSchemeHandler):
    """Serves one server's views on that server's origin only; everything else is not found."""

    def __init__(self, origin: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.origin = origin
        self._views: dict[str, ServedView] = {}

    def add(self, view: ServedView) -> None:
        self._views[view.view_id] = view

    def forget(self, view_id: str) -> None:
        self._views.pop(view_id, None)

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        url = job.requestUrl()
        view = self._views.get(url.path().lstrip("/"))
        if view is None or url.host() != self.origin or bytes(job.requestMethod().data()) != b"GET":
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        if url.scheme() == HOST_SCHEME:
            body = _HOST_PAGE.encode("utf-8")
            csp = f"default-src 'none'; style-src 'unsafe-inline'; frame-src {view.view_url}"
        elif job.initiator().toString() == f"{HOST_SCHEME}://{self.origin}":
            body = view.document.html.encode("utf-8")
            csp = view.document.csp
        else:
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)  # only its host page may frame a view
            return
        headers = {
            QByteArray(b"Content-Security-Policy"): [QByteArray(csp.encode("ascii"))],
            QByteArray(b"X-Content-Type-Options"): [QByteArray(b"nosniff")],
            QByteArray(b"Referrer-Policy"): [QByteArray(b"no-referrer")],
            QByteArray(b"Cache-Control"): [QByteArray(b"no-store")],
        }
        # A QMultiMap in C++: PySide6 wants each header's values as a list (its stub says a single
        # value, which it would then send one character per header line).
        job.setAdditionalResponseHeaders(headers)  # type: ignore[arg-type]
        buffer = QBuffer(job)
        buffer.setData(QByteArray(body))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(QByteArray(b"text/html;charset=utf-8"), buffer)
