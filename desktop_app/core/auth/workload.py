"""Workload identity (SEP-1933): a JWT the platform issued to this workload, as the grant itself.

For MCP Desk running headless (`mcp-desk run` in CI, a container), a server entry with
`"grant": "jwt-bearer"` names where the platform keeps the workload's JWT: a file it rotates
(`assertionFile`) or an environment variable (`assertionEnv`). The JWT is read afresh at each
token request and sent only in the RFC 7523 §2.1 token request, never stored, logged or traced.

Before it leaves, it is checked: a JWT, not expired, and meant for the authorization server it is
about to be sent to (its `aud` names that server's issuer or token endpoint, RFC 7523 §3). The MCP
server chooses the authorization server, so this is what stops a hostile server from collecting
the workload's credential for use elsewhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import jwt
from mcp.client.auth.utils import issuers_match

from desktop_app.core.auth.doctor import Step
from desktop_app.core.auth.errors import SignInError
from desktop_app.core.auth.limits import MAX_TOKEN_CHARS
from desktop_app.core.server_config import OAuthSettings

JWT_BEARER: Final = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def read_assertion(settings: OAuthSettings, environ: Mapping[str, str] | None = None) -> str:
    """The workload's JWT, as its source holds it now (`SignInError` when it cannot be read)."""
    where = source_name(settings)
    if settings.assertion_env is not None:
        text = (os.environ if environ is None else environ).get(settings.assertion_env)
        if text is None:
            raise SignInError(f"{where} is not set; it should hold the workload's JWT", step=Step.CLIENT)
    elif settings.assertion_file is not None:
        try:
            with Path(where).open("rb") as file:
                text = file.read(MAX_TOKEN_CHARS + 1).decode("ascii", errors="replace")
        except OSError as exc:
            raise SignInError(
                f"cannot read the workload's JWT from {where} ({exc.strerror})", step=Step.CLIENT
            ) from None
    else:
        raise SignInError("this server's sign-in names no workload JWT (assertionFile or assertionEnv)")
    text = text.strip()
    if not text or len(text) > MAX_TOKEN_CHARS:
        raise SignInError(f"{where} holds no usable workload JWT (empty or too large)", step=Step.CLIENT)
    return text


def check_assertion(assertion: str, where: str, audiences: Sequence[str]) -> None:
    """Refuse, before sending, an assertion that is no JWT, has expired or is meant for someone else."""
    try:
        claims = jwt.decode(assertion, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise SignInError(f"{where} does not hold a JWT; refusing to send it", step=Step.CLIENT) from None
    expires = claims.get("exp")
    if not isinstance(expires, int | float):
        raise SignInError(f"the workload's JWT ({where}) does not say when it expires", step=Step.CLIENT)
    if expires <= time.time():
        raise SignInError(
            f"the workload's JWT ({where}) has expired; the platform should have issued a new one", step=Step.CLIENT
        )
    named = claims.get("aud")
    named_list = named if isinstance(named, list) else [named]
    if not any(isinstance(aud, str) and issuers_match(aud, want) for aud in named_list for want in audiences):
        raise SignInError(
            f"the workload's JWT ({where}) is not meant for the authorization server {audiences[0]}; refusing to "
            "send it there",
            step=Step.CLIENT,
        )


def source_name(settings: OAuthSettings) -> str:
    """Where the assertion comes from, as an error names it."""
    if settings.assertion_env is not None:
        return f"the environment variable {settings.assertion_env}"
    return str(Path(settings.assertion_file or "").expanduser())
