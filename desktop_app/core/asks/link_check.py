"""Where a link a server wants opened really goes, and what about it should make the user look twice.

A URL elicitation shows an address and, once the user agrees, the browser opens it: what the user
reads must be where the browser goes. So the host is shown in its ASCII form (`аpple.com`, its
first letter Cyrillic, is `xn--pple-43d.com`, as the browser's own resolver sees it) with a
look-alike warning; a `user@` part before the host, which reads like a site name, is called out;
and addresses that browsers and Python's parser read differently (backslashes, control or
invisible characters, percent-encoded or numeric hosts) are refused, as is anything but https
(plain http only to this computer, where nothing crosses the network).

Links have a size. An address longer than `MAX_URL_CHARS` is refused before anything else is read
of it; a shorter one that is still long is shown as `short` (scheme, host and port whole, the rest
cut in the middle), the whole address one action away, and the whole address is what is opened.

Qt-free: the window's link card and `mcp-desk run` both show its findings.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from typing import Final
from urllib.parse import SplitResult, urlsplit, urlunsplit

import idna

LOOPBACK_NAMES: Final = ("localhost",)
_NUMERIC_LABEL: Final = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
"""A last label browsers take as (part of) an IPv4 address: `2130706433`, `0x7f.1`, `127.1`."""
MAX_URL_CHARS: Final = 4096
"""The longest address offered to the user. Real sign-in and payment links (an OAuth request with its
PKCE challenge, state, scopes and redirect) stay under 2,000 characters, the length every browser
and web server has long accepted; 4 KiB is twice that. A longer address carries a payload, not a
place: nobody can read it in a card or a terminal, and it is a way to push kilobytes at the user."""
SHORT_URL_CHARS: Final = 100
"""An address up to this long is shown whole; a longer one as its short form, of this length."""
_TAIL_CHARS: Final = 16
"""The end of a long address kept in its short form (where a path's last part or a query's value shows)."""
MISREAD: Final = "it has a backslash, a space, or a control or invisible character, which browsers read differently"


@dataclass(frozen=True)
class LinkCheck:
    """A link as the user is shown it: the address the browser will open, its host, warnings, or why not."""

    url: str
    """The address to show and open: the server's, with the host in its ASCII (xn--) form."""
    host: str
    """The host the browser will contact, in ASCII."""
    warnings: tuple[str, ...] = ()
    problem: str | None = None
    """Why the link is not offered at all; None when it may be."""

    @property
    def loopback(self) -> bool:
        """The page is on this computer."""
        return _is_loopback(self.host)

    @property
    def oversized(self) -> bool:
        """Refused for its length alone: nothing else of it was read."""
        return len(self.url) > MAX_URL_CHARS

    @property
    def short(self) -> str:
        """The address as a line can show it: whole up to `SHORT_URL_CHARS`; else the scheme, host and port
        whole (never a `user@` part) and the rest cut in the middle, so where it goes is always read in full."""
        if len(self.url) <= SHORT_URL_CHARS:
            return self.url
        parts = urlsplit(self.url)
        netloc = parts.netloc.rpartition("@")[2]
        head = f"{parts.scheme}://{netloc}"
        rest = self.url.split("//", 1)[1][len(parts.netloc) :]
        room = max(SHORT_URL_CHARS - len(head) - 1, _TAIL_CHARS + 1)
        if len(rest) <= room:
            return head + rest
        return f"{head}{rest[: room - _TAIL_CHARS]}…{rest[-_TAIL_CHARS:]}"


def check_link(url: str) -> LinkCheck:
    """What `url` really points at, with warnings for what could mislead, or the reason it is refused."""
    if len(url) > MAX_URL_CHARS:
        return LinkCheck(
            url,
            "",
            problem=f"its address is {len(url):,} characters long; links longer than {MAX_URL_CHARS:,} characters"
            " are not shown",
        )
    if any(_misreadable(ch) for ch in url):
        return LinkCheck(url, "", problem=MISREAD)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return LinkCheck(url, "", problem="the URL cannot be read")
    scheme = parts.scheme.lower()
    raw_host = parts.hostname or ""
    if scheme not in ("http", "https"):
        return LinkCheck(url, raw_host, problem=f"only https links are opened, not '{parts.scheme or url[:20]}:'")
    if not raw_host:
        return LinkCheck(url, "", problem="the URL has no host")
    if "%" in raw_host:
        return LinkCheck(url, raw_host, problem="its host is percent-encoded, which hides where it goes")
    try:
        host, looks_alike = _ascii_host(raw_host)
    except ValueError as exc:
        return LinkCheck(url, raw_host, problem=str(exc))
    warnings = [looks_alike] if looks_alike else []
    if scheme == "http" and not _is_loopback(host):
        return LinkCheck(url, host, problem="plain http is opened only on this computer (localhost); use https")
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else None
    if userinfo is not None:
        shown = userinfo if len(userinfo) <= 40 else userinfo[:39] + "…"
        warnings.append(f"misleading: '{shown}@' is a user name, not the site: the page is on {host}")
    if _is_ip(host) and not _is_loopback(host):
        warnings.append(f"the host is a bare IP address ({host}), not a name")
    shown_url = _with_host(parts, scheme, userinfo, host, port)
    return LinkCheck(shown_url, host, tuple(warnings))


def _misreadable(ch: str) -> bool:
    """A character that parsers disagree on or that hides itself: a backslash, whitespace, control or format."""
    return ch == "\\" or unicodedata.category(ch)[0] in ("C", "Z")


def _ascii_host(host: str) -> tuple[str, str | None]:
    """The host as the browser resolves it (UTS 46, non-transitional), and a look-alike warning if any."""
    if host.startswith("[") or ":" in host:
        return host, None
    if host.isascii():
        ascii_host = host.lower()
    else:
        try:
            ascii_host = idna.encode(host, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise ValueError(f"its host is not a valid domain name ({exc})") from None
    labels = ascii_host.rstrip(".").split(".")
    if labels and _NUMERIC_LABEL.match(labels[-1]) and not _is_ip(ascii_host):
        raise ValueError("its host is a number browsers read as an IP address written in a disguised form")
    international = []
    for label in labels:
        if label.startswith("xn--"):
            try:
                international.append(idna.decode(label))
            except idna.IDNAError:
                raise ValueError(f"its host has an invalid xn-- label ({label})") from None
    if not international:
        return ascii_host, None
    return ascii_host, _look_alike_warning(international)


def _look_alike_warning(labels: list[str]) -> str:
    for label in labels:
        scripts = _scripts(label)
        if len(scripts) > 1:
            return (
                f"look-alike: the name mixes {' and '.join(scripts)} letters, which can pass for another"
                " site's name; it is shown in its xn-- form"
            )
    scripts = sorted({script for label in labels for script in _scripts(label)})
    return (
        f"look-alike: the name has non-ASCII letters ({', '.join(scripts) or 'symbols'}), which can pass for"
        " another site's name; it is shown in its xn-- form"
    )


def _scripts(label: str) -> list[str]:
    """The writing systems of a label's letters, by the first word of each letter's Unicode name."""
    found = set()
    for ch in label:
        if unicodedata.category(ch).startswith("L"):
            found.add(unicodedata.name(ch, "UNKNOWN").split()[0].title())
    return sorted(found)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _is_loopback(host: str) -> bool:
    name = host.rstrip(".")
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _with_host(parts: SplitResult, scheme: str, userinfo: str | None, host: str, port: int | None) -> str:
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    if userinfo is not None:
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
