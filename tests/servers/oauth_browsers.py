"""Stand-ins for the user's browser in sign-in tests: one that follows the page home, one raced by
a forger, and one on another computer that cannot reach this machine's loopback listener."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx2

LOOPBACK = "127.0.0.1"
MAX_REDIRECTS = 10


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


class FollowingBrowser:
    """Stands in for the user's browser: loads the authorization page and follows its redirect home."""

    def __init__(self, *, follow: bool = True) -> None:
        self.follow = follow
        self.opened: list[str] = []
        self.pages: list[str] = []

    async def open(self, url: str) -> None:
        self.opened.append(url)
        if not self.follow:
            return  # the user closed the tab
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as http:
            response = await http.get(url)
            self.pages.append(response.text)


class ForgingBrowser(FollowingBrowser):
    """The user's browser, with another local process racing it: a forged callback reaches the
    app's loopback listener first (wrong state, no state, another path), then the real redirect."""

    def __init__(self) -> None:
        super().__init__()
        self.forged: list[httpx2.Response] = []

    async def open(self, url: str) -> None:
        self.forged = await forge_callbacks(url)
        await super().open(url)


async def forge_callbacks(authorization_url: str) -> list[httpx2.Response]:
    """What any local process can send to the redirect URI an authorization URL names."""
    redirect_uri = query_of(authorization_url)["redirect_uri"]
    async with httpx2.AsyncClient(timeout=10) as http:
        return [
            await http.get(redirect_uri, params={"code": "forged-code", "state": "forged-state"}),
            await http.get(redirect_uri, params={"code": "forged-code"}),
            await http.get(redirect_uri),
            await http.get(redirect_uri.replace("/callback", "/favicon.ico")),
        ]


async def browse_elsewhere(url: str) -> str:
    """A browser on another computer: it follows the sign-in's redirects until one leads to this
    machine's loopback listener, which it cannot reach; returns that address (its address bar)."""
    async with httpx2.AsyncClient(timeout=10) as http:
        for _ in range(MAX_REDIRECTS):
            if urlsplit(url).path.endswith("/callback") and urlsplit(url).hostname == LOOPBACK:
                return url  # "this site can't be reached": the user copies the address
            response = await http.get(url)
            location = response.headers.get("location")
            if not response.is_redirect or location is None:
                raise AssertionError(f"the sign-in page did not redirect back (HTTP {response.status_code})")
            url = str(response.url.join(location))
    raise AssertionError("too many redirects")


class ElsewhereBrowser:
    """The window's opener when the browser is on another computer: the page opens there, and the
    address it ends on is kept for the user to paste (`ended_on`)."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.ended_on: list[str] = []

    async def open(self, url: str) -> None:
        self.opened.append(url)
        self.ended_on.append(await browse_elsewhere(url))
