"""Secrets out of what the sign-in doctor shows: bodies and addresses with their credentials masked.

A token, a code, a client secret or an assertion can sit in a JSON answer, a form, a query
string or an `Authorization` header. The doctor copies what servers sent into a terminal and a
clipboard, so every value under a name that carries a credential, and anything shaped like a
JWT, is replaced by `MASK` before it is shown.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK: Final = "•••"
SECRET_NAMES: Final = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "code",
        "code_verifier",
        "assertion",
        "client_assertion",
        "subject_token",
        "actor_token",
        "registration_access_token",
        "device_code",
        "password",
        "token",
        "authorization",
    }
)
_JWT: Final = re.compile(r"\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*")
_BEARER: Final = re.compile(r"\b(Bearer|Basic|DPoP)\s+(?!\w+=\")[\w\-.~+/]+=*", re.IGNORECASE)
"""A credential after its scheme; not a challenge's `Bearer error="…"` parameters."""
MAX_SHOWN_BODY: Final = 4000


def mask_text(text: str) -> str:
    """`text` with JWT-shaped strings and `Bearer …`/`Basic …` credentials masked."""
    return _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", _JWT.sub(MASK, text))


def mask_url(url: str) -> str:
    """`url` with the values of credential-carrying query parameters masked (a `code`, a token)."""
    parts = urlsplit(url)
    if not parts.query:
        return mask_text(url)
    pairs = [(key, MASK if key.lower() in SECRET_NAMES else value) for key, value in parse_qsl(parts.query, True)]
    return mask_text(urlunsplit(parts._replace(query=urlencode(pairs, safe=":/•"))))


def mask_body(body: bytes | str, content_type: str = "") -> str:
    """A request or response body for display: credentials masked, cut at `MAX_SHOWN_BODY` characters."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    shown: str
    try:
        shown = json.dumps(_masked(json.loads(text)), ensure_ascii=False)
    except ValueError:
        if "x-www-form-urlencoded" in content_type or _looks_like_form(text):
            pairs = parse_qsl(text, keep_blank_values=True)
            shown = urlencode([(k, MASK if k.lower() in SECRET_NAMES else v) for k, v in pairs], safe=":/•")
        else:
            shown = text
    shown = mask_text(shown)
    return shown if len(shown) <= MAX_SHOWN_BODY else shown[: MAX_SHOWN_BODY - 1] + "…"


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: MASK if str(k).lower() in SECRET_NAMES and v not in (None, "") else _masked(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked(item) for item in value]
    return value


def _looks_like_form(text: str) -> bool:
    return "=" in text and not any(ch.isspace() for ch in text.strip()) and not text.lstrip().startswith(("{", "<"))
