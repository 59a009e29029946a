"""No WebRTC in the views' documents: its classes are deleted before a document's own scripts run.

ICE traffic (STUN, TURN over UDP or TCP) is not a request: neither a view's CSP nor the request
guard sees it, and a TURN username or a STUN host name carries data out. The engine's flags
(`web_engine.chromium_flags`) take away its UDP and send its TCP through the relay; this script,
injected into the main world (the views' own) of every frame of a server's profile, takes the
classes away too. It cannot be the only layer: Qt runs it in a task just after a document
commits, so a frame a view makes and reads at once (or points at a `javascript:` URL) still has
them for a moment, and whatever a peer made there tries is the relay's to refuse.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineScript

SCRIPT_NAME: Final = "mcp-desk-webrtc-off"
_SOURCE: Final = """
(function () {
  "use strict";
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (/^(webkit)?RTC/.test(name)) delete globalThis[name];
  }
})();
"""


def remove_webrtc(profile: QWebEngineProfile) -> None:
    """Make every document of `profile`'s pages start without WebRTC's classes, in every frame."""
    script = QWebEngineScript()
    script.setName(SCRIPT_NAME)
    script.setSourceCode(_SOURCE)
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(True)
    profile.scripts().insert(script)
