"""How a sign-in fails, in one line the user can act on.

The SDK raises its own exceptions with protocol detail (a JSON error body, two URLs); the
server's status line and log get a sentence instead. Error text from the authorization server
is shown only after its redirect passed the state and issuer checks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.utils import extract_field_from_www_auth
from pydantic import ValidationError

from desktop_app.core.auth.doctor import Step
from desktop_app.core.server_errors import ServerUnavailableError, transport_failure

_BODY_RE: Final = re.compile(r"(\{.*\})", re.DOTALL)
_SERVER_TEXT_CHARS: Final = 200


class SignInError(Exception):
    """A sign-in that did not complete; the message is the one line the user reads.

    `step` names the step that broke, for the doctor (see `doctor`), when the raiser knows it.
    """

    def __init__(self, message: str, *, step: Step | None = None) -> None:
        super().__init__(message)
        self.step = step


class SignInCancelled(SignInError):
    """The user cancelled, or the browser never came back in time."""


@dataclass(frozen=True)
class Challenge:
    """What a server said when it refused a request: a 401, or a 403 asking for more scopes."""

    status: int
    www_authenticate: str | None = None

    @classmethod
    def of(cls, response: httpx2.Response) -> Challenge:
        return cls(response.status_code, response.headers.get("WWW-Authenticate"))

    def response(self, request: httpx2.Request) -> httpx2.Response:
        """The refusal again, as the response to `request` (the SDK's flow starts from one)."""
        headers = {"WWW-Authenticate": self.www_authenticate} if self.www_authenticate else {}
        return httpx2.Response(self.status, headers=headers, request=request)

    def _field(self, name: str) -> str | None:
        if not self.www_authenticate:
            return None
        return extract_field_from_www_auth(self.response(httpx2.Request("GET", "http://challenge")), name)

    @property
    def scope(self) -> str | None:
        return self._field("scope")

    @property
    def resource_metadata(self) -> str | None:
        """Where the refusal says the server's protected-resource metadata is (RFC 9728 §5.1)."""
        return self._field("resource_metadata")

    @property
    def step_up(self) -> bool:
        """A 403 `insufficient_scope`: the token is fine but does not cover this operation."""
        return self.status == 403 and self._field("error") == "insufficient_scope"


class SignInRequired(ServerUnavailableError):
    """A request was refused until the user signs in (again, or with more scopes)."""

    def __init__(self, message: str, *, server: str, challenge: Challenge | None, reason: str | None = None) -> None:
        super().__init__(message)
        self.server = server
        self.challenge = challenge
        self.reason = reason


def describe_sign_in_error(exc: BaseException, *, authorization_server: str | None = None) -> str:
    """One line for the server's status and log, never a token or a secret."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, SignInError):
        return str(exc)
    if isinstance(exc, OAuthRegistrationError):
        return f"the authorization server refused to register MCP Desk ({_oauth_error(str(exc))})"
    if isinstance(exc, OAuthTokenError):
        return f"the authorization server refused the token request ({_oauth_error(str(exc))})"
    if isinstance(exc, OAuthFlowError):
        return _flow_error(str(exc))
    if isinstance(exc, httpx2.TransportError):
        where = _host_of(exc.request.url) if _has_request(exc) else authorization_server or "the authorization server"
        return f"cannot reach {where} ({transport_failure(exc)})"
    if isinstance(exc, ValidationError):
        return "the authorization server sent a response MCP Desk cannot read"
    if isinstance(exc, TimeoutError):
        return "the authorization server did not answer in time"
    return str(exc) or "an unexpected error, with no details (the app's log may say more)"


def failed_step(exc: BaseException) -> Step | None:
    """The step a sign-in failure belongs to, where the error itself says (else the doctor's last step)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, SignInError):
        return exc.step
    if isinstance(exc, OAuthRegistrationError):
        return Step.CLIENT
    if isinstance(exc, OAuthTokenError):
        return Step.TOKEN
    if isinstance(exc, OAuthFlowError):
        text = str(exc)
        if text.startswith("Protected resource"):
            return Step.RESOURCE_METADATA
        if "metadata issuer" in text or "No authorization server metadata" in text:
            return Step.SERVER_METADATA
        if "iss" in text.split() or "Authorization response" in text:
            return Step.BROWSER
        if text.startswith("Token endpoint"):
            return Step.SERVER_METADATA
    return None


def _has_request(exc: httpx2.TransportError) -> bool:
    try:
        exc.request  # noqa: B018 - raises RuntimeError when the error carries no request
    except RuntimeError:
        return False
    return True


def _host_of(url: httpx2.URL | str) -> str:
    parts = urlsplit(str(url))
    return f"{parts.scheme}://{parts.netloc}"


def _oauth_error(text: str) -> str:
    """`error: error_description` from an RFC 6749 error body embedded in the SDK's message."""
    match = _BODY_RE.search(text)
    if match:
        try:
            body = json.loads(match.group(1))
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            description = body.get("error_description")
            error = server_text(body["error"])
            return f"{error}: {server_text(description)}" if isinstance(description, str) and description else error
    status = re.search(r"\b([45]\d\d)\b", text)
    return f"HTTP {status.group(1)}" if status else "no reason given"


def server_text(text: str) -> str:
    """What an authorization server wrote, as part of one line: printable, spaces collapsed, cut short."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return flat if len(flat) <= _SERVER_TEXT_CHARS else flat[: _SERVER_TEXT_CHARS - 1] + "…"


def _flow_error(text: str) -> str:
    if text.startswith("Protected resource ") and " does not match expected " in text:
        named, expected = text.removeprefix("Protected resource ").split(" does not match expected ", 1)
        return f"the server's metadata is for another resource ({named}), not {expected}; refusing to sign in"
    if text.startswith("Authorization server metadata issuer mismatch"):
        return "the authorization server's metadata names another issuer than the one it was found at; refusing it"
    if text.startswith("Protected resource metadata request failed"):
        return "the server's sign-in metadata is unavailable (" + text.rsplit(": ", 1)[-1] + ")"
    if text.startswith("Authorization response iss mismatch") or "missing iss" in text:
        return "the sign-in came back from another authorization server than the one asked (issuer mismatch)"
    return text
