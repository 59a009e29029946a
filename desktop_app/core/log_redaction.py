"""Known secret values, and the logging filter that hides them from every record, whatever logged it.

A secret resolved for use (a `${secret:…}` in a server's URL, headers or environment, a provider's
API key) is remembered here the moment it is resolved. Libraries log what they see: httpx2's INFO
log prints request URLs, query string included. Each handler MCP Desk installs carries
`RedactingFilter`, so such a line shows `***` instead of the value.
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
_SECRET_ENV_NAME: Final = re.compile(r"(API_KEY|APIKEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)

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
    remember_secrets(value for name, value in environ.items() if _SECRET_ENV_NAME.search(name))


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
