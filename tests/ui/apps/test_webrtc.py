"""A view cannot send data out over WebRTC: ICE traffic never passes the CSP or the request guard.

A hostile view asks the engine to reach STUN and TURN servers on 127.0.0.1 (the data rides in
the TURN username), from its own window and from windows it makes itself; real UDP and TCP
listeners stand where those servers would be, and must hear nothing.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
from PySide6.QtWidgets import QApplication

from tests.hosting import eventually
from tests.ui.apps.app_view_run import run
from tests.ui.apps.harness import Env

QUIET_FOR = 3.0
"""How long the listeners must stay silent once the view says it tried (ICE starts at once)."""


class Listeners:
    """A UDP socket and a TCP socket on 127.0.0.1 that record whatever reaches them."""

    def __init__(self) -> None:
        self.arrived: list[str] = []
        self._stop = threading.Event()
        self._udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._udp.bind(("127.0.0.1", 0))
        self._tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._tcp.bind(("127.0.0.1", 0))
        self._tcp.listen()
        for sock in (self._udp, self._tcp):
            sock.settimeout(0.05)  # the threads look at the stop flag between waits
        self.udp_port = self._udp.getsockname()[1]
        self.tcp_port = self._tcp.getsockname()[1]
        self._threads = [
            threading.Thread(target=self._read_udp, daemon=True),
            threading.Thread(target=self._accept_tcp, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_udp(self) -> None:
        while not self._stop.is_set():
            try:
                data, sender = self._udp.recvfrom(65536)
            except TimeoutError:
                continue
            self.arrived.append(f"udp from {sender}: {data[:80]!r}")

    def _accept_tcp(self) -> None:
        while not self._stop.is_set():
            try:
                connection, sender = self._tcp.accept()
            except TimeoutError:
                continue
            self.arrived.append(f"tcp from {sender}")
            connection.close()

    async def stay_quiet(self, seconds: float) -> None:
        """Fail as soon as anything arrives; pass once `seconds` went by in silence."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.arrived == [], self.arrived
            await asyncio.sleep(0.05)
        assert self.arrived == [], self.arrived

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self._udp.close()
        self._tcp.close()


def test_a_view_cannot_reach_stun_or_turn_servers(qapp: QApplication, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(env: Env) -> None:
        listeners = Listeners()
        try:
            step = f"webrtc:{listeners.udp_port},{listeners.tcp_port}"
            view = env.view()
            view.tool_input({"steps": [step]})
            report = await env.wait_report(step)
            assert report["ok"] is True and report["detail"]["failed"] == [], report
            # The view's window has no WebRTC. Frames it makes have it until a document loads in
            # them (the engine runs the host's scripts only then): their peers are what the relay stops.
            assert report["detail"]["tried"] == ["fresh iframe", "javascript: iframe"], report
            refusal = f"connection to 127.0.0.1:{listeners.tcp_port}: no open view declared it"
            await eventually(lambda: any(refusal in r.getMessage() for r in caplog.records), what="the relay's refusal")
            await listeners.stay_quiet(QUIET_FOR)
        finally:
            listeners.close()

    run(qapp, scenario)


def test_webrtc_is_gone_from_the_views_documents(qapp: QApplication) -> None:
    async def scenario(env: Env) -> None:
        view = env.view()
        view.tool_input({"steps": ["rtc-seen:"]})
        report = await env.wait_report("rtc-seen:")
        assert report["ok"] is True, report
        # Its first script, its later ones, and a document it loads into a frame of its own.
        assert report["detail"] == {"first": [], "window": [], "srcdoc": []}

    run(qapp, scenario)
