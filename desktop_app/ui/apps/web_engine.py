"""Loading QtWebEngine on first use, and the two URL schemes views are served from.

The engine costs ~200 MB of shared libraries and a helper process, so it is imported only when
the first view is made. Qt allows registering custom schemes until the first profile exists,
which is exactly then; so are Chromium's flags, and the relay they send every view's connections
through. One thing must happen earlier: sharing OpenGL contexts has to be set before the
application object is created, and costs nothing.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QCoreApplication, Qt

if TYPE_CHECKING:
    from desktop_app.core.apps.relay import ConnectRelay

log = logging.getLogger(__name__)

HOST_SCHEME: Final = "mcp-app-host"
"""The page that frames a view (and holds the bridge): one origin per server."""
VIEW_SCHEME: Final = "mcp-app"
"""The view's own document, served with its CSP header: another origin per server."""

WEBRTC_POLICY: Final = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"
"""The strictest policy Chromium has: WebRTC sends no UDP unless through a proxy (which carries none)."""
_OURS: Final = (
    "--force-webrtc-ip-handling-policy",
    "--proxy-server",
    "--proxy-bypass-list",
    "--proxy-pac-url",
    "--no-proxy-server",
    "--proxy-auto-detect",
)

_relay: ConnectRelay | None = None
_ready = False


def prepare_application() -> None:
    """Call before the QApplication exists: QtWebEngine needs shared GL contexts (a flag, no import)."""
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def server_origin(server: str) -> str:
    """The host part of a server's view URLs: its own origin, stable across runs, never another's."""
    import hashlib  # here: the window's start-up imports this module (prepare_application), not this

    return "s" + hashlib.sha256(server.encode("utf-8")).hexdigest()[:20]


def view_relay() -> ConnectRelay:
    """The relay every connection of every view goes through (see `chromium_flags`); guards keep its list."""
    global _relay
    if _relay is None:
        from desktop_app.core.apps.relay import ConnectRelay  # here: not at the window's start-up

        _relay = ConnectRelay()
    return _relay


def chromium_flags(flags: str, relay_port: int) -> str:
    """`flags` with what every view needs; Chromium reads them once per process, so they are set here only.

    ICE traffic passes neither a view's CSP nor the request guard. WebRTC gets no UDP, and every
    connection the engine makes, loopback included, goes through the relay, which carries TURN
    over TCP only to an origin a view declared. (Scripts of the views also lose WebRTC's classes:
    `webrtc_off`.) As root, Chromium refuses to start its own process sandbox at all.
    """
    words = [word for word in flags.split() if word.split("=", 1)[0] not in _OURS]
    words += [WEBRTC_POLICY, f"--proxy-server=socks5://127.0.0.1:{relay_port}", "--proxy-bypass-list=<-loopback>"]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--no-sandbox" not in words:
        # Views stay in their iframe sandbox.
        log.warning("running as root: QtWebEngine starts without Chromium's process sandbox")
        words.append("--no-sandbox")
    return " ".join(words)


def ensure_ready() -> None:
    """Import QtWebEngine and register the view schemes (once, before the first profile)."""
    global _ready
    if _ready:
        return
    flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = chromium_flags(flags, view_relay().start())
    from PySide6.QtWebEngineCore import QWebEngineUrlScheme

    for name in (HOST_SCHEME, VIEW_SCHEME):
        scheme = QWebEngineUrlScheme(name.encode("ascii"))
        scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
        # Secure, so a view is a secure context (clipboard, devices); no CORS: views cannot fetch each other.
        scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)
        QWebEngineUrlScheme.registerScheme(scheme)
    _ready = True
