"""App view tests get a fake camera and microphone: a view's media request then reaches the permission guard
(with no device, Chromium fails it before anyone is asked). Set before the engine starts in this process."""

from __future__ import annotations

import os

_FAKE_DEVICES = "--use-fake-device-for-media-stream"
if _FAKE_DEVICES not in os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split():
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{os.environ.get('QTWEBENGINE_CHROMIUM_FLAGS', '')} {_FAKE_DEVICES}"
