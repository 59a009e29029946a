"""The fallback when the browser cannot reach this machine: the user carries the sign-in by hand.

Over SSH, in a remote desktop or with the browser on another computer, the loopback redirect
never arrives. The sign-in under way then offers its authorization page's address to open
anywhere, and takes the address the browser ended on ("this site can't be reached" included),
pasted back. What is pasted goes to the sign-in's own listener and meets the same checks as a
redirect (its redirect URI and state there, the issuer afterwards).
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_app.core.auth.doctor import Step
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.loopback import LoopbackListener

PageWatcher = Callable[[str | None], None]
"""Told the authorization page's address when a sign-in shows one, and None when it ends."""


class PastedRedirect:
    """One server's paste slot: the page of the sign-in under way, and where a pasted answer goes."""

    def __init__(self) -> None:
        self.page: str | None = None
        """The authorization page the sign-in under way shows (None: no sign-in is waiting for one)."""
        self._listener: LoopbackListener | None = None
        self._watchers: list[PageWatcher] = []

    def watch(self, watcher: PageWatcher) -> Callable[[], None]:
        """Tell `watcher` about each page shown (at once, if one is); returns how to stop."""
        self._watchers.append(watcher)
        if self.page is not None:
            watcher(self.page)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def attach(self, listener: LoopbackListener) -> None:
        """A sign-in opened its listener (the flow calls this)."""
        self._listener = listener

    def shown(self, page: str) -> None:
        """The sign-in showed `page` to the user (the flow calls this)."""
        self.page = page
        self._tell(page)

    def detach(self) -> None:
        """The sign-in ended: nothing more can be pasted."""
        self._listener = None
        if self.page is not None:
            self.page = None
            self._tell(None)

    def paste(self, address: str) -> None:
        """Hand the sign-in the address the browser ended on; `SignInError` says why it is not taken."""
        listener = self._listener
        if listener is None or self.page is None:
            raise SignInError("no sign-in is waiting for its answer", step=Step.BROWSER)
        listener.accept_pasted(address)

    def _tell(self, page: str | None) -> None:
        for watcher in list(self._watchers):
            watcher(page)
