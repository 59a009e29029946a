"""The Content-Security-Policy of a view, and the same allow-list for the request interceptor.

A view gets exactly the origins its resource declared (`_meta.ui.csp`) and nothing more: with no
declaration it gets the specification's restrictive default (no network at all). The same origins
drive the web engine's request interceptor, so a request CSP would let through for a reason this
module does not know (a prefetch, a redirect, a form) is still refused unless declared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

MAX_ORIGINS: Final = 64
"""Per directive; a resource declaring more is refused the rest (and the user is told)."""
_SCHEMES: Final = frozenset({"http", "https", "ws", "wss"})
_DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# CSP source-expression scheme matching (CSP3 §6.7.2.8): a secure scheme also satisfies its
# insecure pattern, and http(s) patterns cover the matching web-socket schemes.
_SCHEME_COVERS: Final = {
    "http": frozenset({"http", "https", "ws", "wss"}),
    "https": frozenset({"https", "wss"}),
    "ws": frozenset({"ws", "wss"}),
    "wss": frozenset({"wss"}),
}
_HOST: Final = re.compile(r"^(\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")
_IPV6: Final = re.compile(r"^\[[0-9a-f:.]+\]$")
_BARE: Final = re.compile(r"^[^:/]+(:(\d+|\*))?(/.*)?$")


@dataclass(frozen=True)
class AppCsp:
    """The origins a view declared, per CSP directive family (`_meta.ui.csp`), already validated."""

    connect: tuple[str, ...] = ()
    resource: tuple[str, ...] = ()
    frame: tuple[str, ...] = ()
    base_uri: tuple[str, ...] = ()

    @property
    def fetchable(self) -> tuple[str, ...]:
        """Every origin the view may load anything from (base-uri only names a document base)."""
        return self.connect + self.resource + self.frame

    def as_meta(self) -> dict[str, list[str]]:
        """The `csp` shape of the specification (for `hostCapabilities.sandbox.csp`)."""
        pairs = (
            ("connectDomains", self.connect),
            ("resourceDomains", self.resource),
            ("frameDomains", self.frame),
            ("baseUriDomains", self.base_uri),
        )
        return {key: list(value) for key, value in pairs if value}


@dataclass(frozen=True)
class _Origin:
    scheme: str
    host: str
    wildcard: bool
    port: int | None  # None: any port ("*"); otherwise explicit or the scheme's default


def _parse_origin(text: str) -> _Origin | None:
    """`scheme://host[:port][/path]`, `https://*.example.com`, or a bare host (taken as https)."""
    if not text or len(text) > 253 or any(c.isspace() or c in ";,'\"\\<>" for c in text):
        return None
    if "://" not in text and not _BARE.match(text):
        return None
    candidate = text if "://" in text else f"https://{text}"
    try:
        parts = urlsplit(candidate)
        port = parts.port
    except ValueError:
        if not candidate.endswith(":*") and ":*/" not in candidate:
            return None
        parts = urlsplit(candidate.replace(":*", "", 1))
        port = -1
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _SCHEMES or not host or parts.username or parts.password or parts.query or parts.fragment:
        return None
    wildcard = host.startswith("*.")
    if not (_HOST.match(host) or _IPV6.match(f"[{host}]")) or host == "*":
        return None
    if port == -1:
        return _Origin(scheme, host.removeprefix("*."), wildcard, None)
    return _Origin(scheme, host.removeprefix("*."), wildcard, port or _DEFAULT_PORTS[scheme])


def clean_origins(value: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split a declared list into (usable source expressions, refused entries)."""
    if value is None:
        return (), ()
    if not isinstance(value, list):
        return (), (repr(value)[:80],)
    good: list[str] = []
    bad: list[str] = []
    for item in value:
        if not isinstance(item, str) or _parse_origin(item) is None:
            bad.append(str(item)[:80])
        elif len(good) >= MAX_ORIGINS:
            bad.append(item[:80])
        elif (expression := item if "://" in item else f"https://{item}") not in good:
            good.append(expression)
    return tuple(good), tuple(bad)


def build_csp(csp: AppCsp) -> str:
    """The `Content-Security-Policy` header value for a view, as the specification constructs it.

    Stricter where the specification allows ("MAY further restrict"): `connect-src` is `'none'`
    unless origins are declared, forms may not post anywhere, and workers are not allowed.
    """

    def sources(*fixed: str, origins: Iterable[str] = (), empty: str | None = None) -> str:
        listed = [*fixed, *origins]
        return " ".join(listed) if listed else (empty or "'none'")

    resource = csp.resource
    directives = [
        ("default-src", "'none'"),
        ("script-src", sources("'self'", "'unsafe-inline'", origins=resource)),
        ("style-src", sources("'self'", "'unsafe-inline'", origins=resource)),
        ("img-src", sources("'self'", "data:", origins=resource)),
        ("font-src", sources("'self'", origins=resource)),
        ("media-src", sources("'self'", "data:", origins=resource)),
        ("connect-src", sources(origins=csp.connect)),
        ("frame-src", sources(origins=csp.frame)),
        ("object-src", "'none'"),
        ("worker-src", "'none'"),
        ("form-action", "'none'"),
        ("base-uri", sources(origins=csp.base_uri, empty="'self'")),
    ]
    return "; ".join(f"{name} {value}" for name, value in directives)


def origin_allowed(url: str, declared: Iterable[str]) -> bool:
    """Whether a request to `url` goes to one of the `declared` origins (scheme, host, port)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _SCHEMES or not host:
        return False
    port = port or _DEFAULT_PORTS[scheme]
    for text in declared:
        origin = _parse_origin(text)
        if origin is None or scheme not in _SCHEME_COVERS[origin.scheme]:
            continue
        if origin.wildcard:
            if not host.endswith("." + origin.host):
                continue
        elif host != origin.host:
            continue
        if (
            origin.port is None
            or origin.port == port
            or (
                # an upgraded scheme keeps its own default port (http://x pattern, https://x request)
                origin.port == _DEFAULT_PORTS[origin.scheme] and port == _DEFAULT_PORTS[scheme]
            )
        ):
            return True
    return False
