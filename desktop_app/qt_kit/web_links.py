"""Which links leave the app: a document's or a message's, opened in the user's browser (or mail
client) only after the user says yes, and shown as exactly what will be opened.

A server wrote the link. Only web pages and mail addresses are offered (never `file:`, a share, a
script, or another app's scheme). The address is shown in its ASCII form, the one handed to the
browser: a host in other scripts appears as `xn--…` with a look-alike warning, and invisible or
bidi characters that would make it read differently appear percent-encoded. A `user@` part that
reads like a site name is called out. A mail link keeps only its addressees, subject and body:
some mail clients attach a file named by `attach=`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QUrl, QUrlQuery

WEB_SCHEMES: Final = frozenset({"http", "https", "mailto"})
MAIL_FIELDS: Final = frozenset({"to", "cc", "bcc", "subject", "body", "in-reply-to"})
_ENCODED: Final = QUrl.ComponentFormattingOption.FullyEncoded


@dataclass(frozen=True)
class WebLink:
    """A link as offered to the user: what is shown is what opens."""

    shown: str
    """The address in its ASCII form: what the dialog shows and what the browser gets."""
    warnings: tuple[str, ...] = ()
    problem: str | None = None
    """Why the link is not offered at all; None when the user may open it."""

    @property
    def url(self) -> QUrl:
        return QUrl.fromEncoded(self.shown.encode("ascii"), QUrl.ParsingMode.StrictMode)


def vet_web_link(address: str) -> WebLink:
    """The link to offer for `address`, with warnings, or the reason it is not offered."""
    url = QUrl(address)
    scheme = url.scheme()
    if not url.isValid() or scheme not in WEB_SCHEMES:
        return WebLink(address, problem="only web pages and mail addresses are opened from here")
    warnings: list[str] = []
    if scheme == "mailto":
        dropped = _keep_mail_fields(url)
        if dropped:
            warnings.append(f"left out what a mail link should not ask for: {', '.join(sorted(dropped))}")
    elif not url.host():
        return WebLink(address, problem="the address names no site")
    ascii_host = url.host(_ENCODED)
    if ascii_host != url.host():
        warnings.append(
            f"look-alike: the site's name has non-ASCII letters ({url.host()}), which can pass for another"
            f" site; it is shown as the browser looks it up, {ascii_host}"
        )
    if url.userInfo():
        warnings.append(f"misleading: '{url.userInfo(_ENCODED)}@' is a user name, not the site: it is {ascii_host}")
    return WebLink(url.toString(_ENCODED), tuple(warnings))


def _keep_mail_fields(url: QUrl) -> set[str]:
    """Drop a mail link's query fields other than `MAIL_FIELDS`; the names dropped."""
    query = QUrlQuery(url)
    dropped = {name for name, _value in query.queryItems() if name.lower() not in MAIL_FIELDS}
    for name in dropped:
        query.removeAllQueryItems(name)
    url.setQuery(query)
    return dropped
