"""Chromium's flags for views: whatever else is set, WebRTC has no UDP and every connection takes the relay."""

from __future__ import annotations

from desktop_app.ui.apps.web_engine import WEBRTC_POLICY, chromium_flags


def test_the_relay_and_the_webrtc_policy_replace_any_given_ones() -> None:
    given = (
        "--disable-gpu --proxy-server=http://corp:3128 --proxy-bypass-list=* --no-proxy-server"
        " --force-webrtc-ip-handling-policy=default"
    )
    words = chromium_flags(given, 4321).split()
    assert "--disable-gpu" in words
    assert [w for w in words if w.startswith(("--proxy", "--no-proxy", "--force-webrtc"))] == [
        WEBRTC_POLICY,
        "--proxy-server=socks5://127.0.0.1:4321",
        "--proxy-bypass-list=<-loopback>",  # loopback too: Chromium would otherwise go there directly
    ]
