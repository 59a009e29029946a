"""The one way a sign-in shows the user a page: the window opens the system browser, the command
line prints the URL, tests follow it over HTTP."""

from __future__ import annotations

from typing import Protocol

from desktop_app.core.auth.errors import SignInError


class BrowserOpener(Protocol):
    """Shows the user the authorization page; raises `SignInError` when it cannot."""

    async def open(self, url: str) -> None: ...


class NoBrowser:
    """Where nobody can open a page (a headless run): sign-in fails with a pointer to the command that can."""

    async def open(self, url: str) -> None:
        raise SignInError("no browser can be opened here; sign in with `mcp-desk login NAME`")
