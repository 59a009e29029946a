"""Loading QtWebEngine on first use, and the two URL schemes views are served from.

The engine costs ~200 MB of shared libraries and a helper process, so it is imported only when
the first view is made. Qt allows registering custom schemes until the first profile exists,
which is exactly then. One thing must happen earlier: sharing OpenGL contexts has to be set
before the application object is created, and costs nothing.
"""

from __future__ import annotations

import logging
import os
from typing import Final

from PySide6.QtCore import QCoreApplication, Qt

log = logging.getLogger(__name__)

HOST_SCHEME: Final = "mcp-app-host"
"""The page that frames a view (and holds the bridge): one origin per server."""
VIEW_SCHEME: Final = "mcp-app"
"""The view's own document, served with its CSP header: another origin per server."""

_ready = False


def prepare_application() -> None:
    """Call before the QApplication exists: QtWebEngine needs shared GL contexts (a flag, no import)."""
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def server_origin(server: str) -> str:
    """The host part of a server's view URLs: its own origin, stable across runs, never another's."""
    import hashlib  # here: the window's start-up imports this module (prepare_application), not this

    return "s" + hashlib.sha256(server.encode("utf-8")).hexdigest()[:20]


def ensure_ready() -> None:
    """Import QtWebEngine and register the view schemes (once, before the first profile)."""
    global _ready
    if _ready:
        return
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags.split():
            # Chromium refuses to start its own process sandbox as root; views stay in their iframe sandbox.
            log.warning("running as root: QtWebEngine starts without Chromium's process sandbox")
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --no-sandbox".strip()
    from PySide6.QtWebEngineCore import QWebEngineUrlScheme

    for name in (HOST_SCHEME, VIEW_SCHEME):
        scheme = QWebEngineUrlScheme(name.encode("ascii"))
        scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
        # Secure, so a view is a secure context (clipboard, devices); no CORS: views cannot fetch each other.
        scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)
        QWebEngineUrlScheme.registerScheme(scheme)
    _ready = True
