"""Secrets out of everything a trace, a ledger or an export keeps.

A trace holds what servers and the model said, and either may repeat a secret: a server that
prints its environment, a provider that echoes a header, a URL with its key in the query. So
every string is scrubbed before it is written, three ways:

- known values: the app's API keys and resolved `${secret:…}` values (`log_redaction` remembers
  each one the moment it is resolved), plus the values this scrubber is given (what of a server's
  environment and headers is a credential, OAuth tokens: `chat.trace_secrets` decides);
- shapes: `Bearer …`, JWTs, provider key formats (`sk-…`, `AIza…`, `ghp_…`), credential query
  parameters (`?key=`, `&access_token=`), a URL's password;
- names: a string under a key named like a credential (`api_key`, `authorization`, …).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import quote, quote_plus

from desktop_app.core.log_redaction import CREDENTIAL_SHAPES, MIN_SECRET_LENGTH, REDACTED, redact_secrets

SECRET_KEYS: Final = frozenset(
    {
        "api_key",
        "apikey",
        "x-api-key",
        "authorization",
        "proxy-authorization",
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "password",
        "secret",
        "cookie",
        "set-cookie",
    }
)
MEMO_TEXT_CHARS: Final = 20_000
"""Texts up to this long are remembered once scrubbed…"""
MEMO_CHARS: Final = 4_000_000
"""…up to about this much text in all."""
_USERINFO: Final = re.compile(r"(://[^/\s:@]*:)[^/\s@]+(?=@)")
"""A URL's password: `https://ada:***@host`."""
_QUERY: Final = re.compile(
    r"([?&#](?:key|api_key|apikey|token|access_token|refresh_token|client_secret|password|sig|signature|code)=)"
    r"[^&#\s\"']+",
    re.IGNORECASE,
)


class Scrubber:
    """Replaces secrets with `***` in text and in JSON-like values (dicts, lists, strings)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        forms = {
            form
            for value in values
            if len(value) >= MIN_SECRET_LENGTH
            for form in (value, quote(value, safe=""), quote(value), quote_plus(value))
        }
        ordered = sorted(forms, key=len, reverse=True)  # a secret containing another is replaced whole
        self._known = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None
        self._done: dict[str, str] = {}
        """Texts scrubbed before: a long chat's every request and ledger repeat the chat so far."""
        self._held = 0

    def text(self, text: str) -> str:
        if (done := self._done.get(text)) is not None:
            return done
        scrubbed = text
        if self._known is not None:
            scrubbed = self._known.sub(REDACTED, scrubbed)
        scrubbed = redact_secrets(scrubbed)
        scrubbed = CREDENTIAL_SHAPES.sub(_keep_scheme, scrubbed)
        scrubbed = _USERINFO.sub(lambda m: m.group(1) + REDACTED, scrubbed)
        scrubbed = _QUERY.sub(lambda m: m.group(1) + REDACTED, scrubbed)
        if len(text) <= MEMO_TEXT_CHARS:
            if self._held > MEMO_CHARS:  # forgotten all at once: simple, and safe across threads
                self._done, self._held = {}, 0
            self._done[text] = scrubbed
            self._held += len(text)
        return scrubbed

    def value(self, value: Any) -> Any:
        """A copy of `value` with every string scrubbed and every credential-named string hidden."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                key: REDACTED
                if isinstance(key, str) and key.lower() in SECRET_KEYS and isinstance(item, str) and item
                else self.value(item)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value


def _keep_scheme(match: re.Match[str]) -> str:
    """`Bearer abc` → `Bearer ***`: what kind of credential it was stays readable."""
    found = match.group(0)
    scheme, space, _ = found.partition(" ")
    return f"{scheme} {REDACTED}" if space and scheme.lower() in ("bearer", "basic", "dpop") else REDACTED
