"""Known secret values, and the logging filter that hides them from every record, whatever logged it.

A secret resolved for use (a `${secret:…}` in a server's URL, headers or environment, a provider's
API key) is remembered here the moment it is resolved. Libraries log what they see: httpx2's INFO
log prints request URLs, query string included. Each handler MCP Desk installs carries
`RedactingFilter`, so such a line shows `***` instead of the value.

What counts as a credential by its name or its shape is decided here too, for logs and traces alike:
hiding every value a server is given would hide ordinary words (`MODE=deleted`) wherever they appear.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable
from typing import Final
from urllib.parse import quote, quote_plus

REDACTED: Final = "***"
MIN_SECRET_LENGTH: Final = 4
"""Shorter values would mangle ordinary text; nothing that short is a real secret."""
CREDENTIAL_SHAPES: Final = re.compile(
    r"\b(?:Bearer|Basic|DPoP)\s+[\w\-.~+/]+=*"
    r"|\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*"
    r"|\bsk-[A-Za-z0-9_\-]{16,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}"
    r"|\bglpat-[A-Za-z0-9_\-]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9\-]{10,}",
    re.IGNORECASE,
)
"""Credentials by their format (bearer and basic credentials, JWTs, provider keys), wherever they appear."""
_CREDENTIAL_WORDS: Final = frozenset(
    {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "KEY", "APIKEY", "AUTH", "AUTHORIZATION"}
    | {"CREDENTIAL", "COOKIE", "PAT", "SIGNATURE"}
)
_CREDENTIAL_ENDINGS: Final = ("TOKEN", "SECRET", "PASSWORD", "KEY", "CREDENTIAL")
_NAME_WORDS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
MIN_SHAPED_LENGTH: Final = 16
"""A value shorter than this is judged by its name alone."""
_CHUNKS: Final = re.compile(r"[-_.~+/=:@,]+")
_NOT_A_CREDENTIAL: Final = re.compile(r"^(?:[/~.]|[A-Za-z]:\\|[A-Za-z][A-Za-z0-9+.-]*://)")
"""Paths and URLs (a URL's password is found by its own shape)."""

_lock = threading.Lock()
_known: set[str] = set()
_pattern: re.Pattern[str] | None = None


def remember_secrets(values: Iterable[str]) -> None:
    """From now on, no log record shows these values (nor their URL-encoded forms)."""
    global _pattern
    forms = {form for value in values if len(value) >= MIN_SECRET_LENGTH for form in _forms(value)}
    with _lock:
        if forms <= _known:
            return
        _known.update(forms)
        # Longest first, so a secret containing another is replaced whole.
        ordered = sorted(_known, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(value) for value in ordered))


def remember_environment_secrets(environ: dict[str, str] | None = None) -> None:
    """Values of variables named like secrets (`…_API_KEY`, `…_TOKEN`, …): providers read keys from them."""
    environ = dict(os.environ) if environ is None else environ
    remember_secrets(value for name, value in environ.items() if is_credential_name(name))


def is_credential_name(name: str) -> bool:
    """Whether a variable's or a header's name says its value is a credential: its last word is TOKEN,
    SECRET, PASSWORD, KEY, AUTH, CREDENTIALS, COOKIE… (`GITHUB_TOKEN`, `apiKey`, `X-Api-Key`,
    `Authorization`), not `TOKEN_URL` nor `AUTH_MODE`, whose values are not."""
    words = _NAME_WORDS.findall(name.upper() if name.isupper() or name.islower() else name)
    if not words:
        return False
    last = words[-1].upper()
    return any(
        word in _CREDENTIAL_WORDS or word.endswith(_CREDENTIAL_ENDINGS) for word in (last, last.removesuffix("S"))
    )


def looks_like_credential(value: str) -> bool:
    """Whether a value has a credential's shape whatever its name: a known format (`sk-…`, `ghp_…`, a
    JWT), or a long word with a random-looking part (letters and digits mixed, eight or more), as keys,
    tokens and hex or base64 secrets have and ordinary words, paths and URLs do not."""
    if CREDENTIAL_SHAPES.search(value):
        return True
    value = value.strip()
    if len(value) < MIN_SHAPED_LENGTH or any(c.isspace() for c in value) or _NOT_A_CREDENTIAL.match(value):
        return False
    return any(
        len(chunk) >= 8 and any(c.isdigit() for c in chunk) and any(c.isalpha() for c in chunk)
        for chunk in _CHUNKS.split(value)
    )


def redact_secrets(text: str) -> str:
    pattern = _pattern
    return text if pattern is None else pattern.sub(REDACTED, text)


def _forms(value: str) -> set[str]:
    return {value, quote(value, safe=""), quote(value), quote_plus(value)}


class RedactingFilter(logging.Filter):
    """Renders a record's message (and traceback) once, with every known secret replaced."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _pattern is None:
            return True
        message = record.getMessage()
        record.msg, record.args = redact_secrets(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_secrets(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_secrets(record.stack_info)
        return True
