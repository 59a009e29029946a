"""The sign-in doctor: what each step of a sign-in did, so a failure names the step that broke.

A sign-in is a chain of steps, each at an address of its own: the protected-resource metadata,
the authorization server's metadata, the client's identity (pre-registered, a Client ID Metadata
Document or a registration), the browser step, the token request and the first request made with
the token; an organisation's sign-in adds the identity provider and the token exchange. A
`Diagnosis` keeps one `Finding` per step, in the order the steps ran: the address, the HTTP
status and the server's own words, each a printable line with credentials masked, for
`mcp-desk login` and the window's Details view.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final
from urllib.parse import parse_qsl, urlsplit

import httpx2

from desktop_app.core.auth.masking import mask_body, mask_text, mask_url

_WORDS_CHARS: Final = 200
_TAG: Final = re.compile(r"<[^>]*>")
JWT_BEARER: Final = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE: Final = "urn:ietf:params:oauth:grant-type:token-exchange"


class Step(StrEnum):
    """The steps of a sign-in, as the user reads them."""

    IDP_METADATA = "identity provider metadata"
    IDP_SIGN_IN = "identity provider sign-in"
    ID_TOKEN = "ID token"
    RESOURCE_METADATA = "protected-resource metadata"
    SERVER_METADATA = "authorization-server metadata"
    CLIENT = "client identity"
    BROWSER = "browser step"
    TOKEN_EXCHANGE = "token exchange (ID-JAG)"
    TOKEN = "token request"
    FIRST_REQUEST = "first authorized request"


@dataclass(frozen=True)
class Finding:
    """One step's outcome: `ok` True (✓), False (✗) or None (nothing there, and that is allowed)."""

    step: Step
    ok: bool | None
    how: str = ""
    """Which way the step went: "registration", "pre-registered", "JWT bearer", …"""
    method: str = ""
    url: str = ""
    status: int | None = None
    words: str = ""
    """The server's own words (its error and description, quoted), one line."""
    problem: str = ""
    """What MCP Desk found wrong at this step, one line."""
    body: str = ""
    """The answer's body with credentials masked, for `--verbose` and the Details view."""

    @property
    def mark(self) -> str:
        return {True: "✓", False: "✗", None: "–"}[self.ok]

    def line(self) -> str:
        """One printable line: mark, step, address, status and words."""
        text = f"{self.mark} {self.step}" + (f" ({self.how})" if self.how else "")
        where = " ".join(part for part in (self.method, _short(self.url)) if part)
        if where:
            text += f": {where}"
        if self.status is not None:
            text += f" → HTTP {self.status}"
        words = self.words
        if words and self.problem and words.strip('"') in self.problem:
            words = ""  # MCP Desk's line already quotes the server
        text += "".join(f" — {part}" for part in (words, self.problem) if part)
        return one_line(text, limit=1000)


class Diagnosis:
    """The findings of one sign-in (and of the first request made with its token)."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.resource_metadata_url: str | None = None
        """Where the server's refusal said its protected-resource metadata is (it may be anywhere)."""

    def note(self, finding: Finding) -> None:
        """The step's latest outcome, in the place of any earlier one (a fallback that then worked)."""
        for index, earlier in enumerate(self.findings):
            if earlier.step is finding.step:
                self.findings[index] = finding
                return
        self.findings.append(finding)

    def fail(self, step: Step, problem: str, **fields: object) -> None:
        """Mark `step` failed with what MCP Desk found, keeping the address, status and words it reached."""
        base = self.finding(step) or Finding(step, False)
        self.note(replace(base, ok=False, problem=one_line(problem), **fields))  # type: ignore[arg-type]

    def note_page(self, step: Step, page: str) -> None:
        """A browser step began: the page shown to the user."""
        self.note(Finding(step, None, method="GET", url=page, problem="page shown; waiting for the browser"))

    def passed(self, step: Step, note: str = "", **fields: object) -> None:
        """`step` went through (keeping the address and status it reached)."""
        earlier = self.finding(step) or Finding(step, True)
        self.note(replace(earlier, ok=True, problem=one_line(note), **fields))  # type: ignore[arg-type]

    def note_client(self, step: Step, how: str, client_id: str) -> None:
        """The client identity used, unless this sign-in registered one (that exchange is already noted)."""
        earlier = self.finding(step)
        if earlier is None or earlier.how != "registration":
            self.note(Finding(step, True, how=how, problem=f"client {one_line(client_id)}"))

    def finding(self, step: Step) -> Finding | None:
        return next((f for f in self.findings if f.step is step), None)

    @property
    def failed(self) -> Finding | None:
        """The step that broke, if one did."""
        return next((f for f in reversed(self.findings) if f.ok is False), None)

    def last_step(self) -> Step | None:
        return self.findings[-1].step if self.findings else None

    def lines(self, *, verbose: bool = False) -> list[str]:
        """One line per step; with `verbose`, each answer's masked body under its step."""
        out: list[str] = []
        for finding in self.findings:
            out.append(finding.line())
            if verbose and _short(finding.url) != mask_url(finding.url):
                out.append("    " + mask_url(finding.url))
            if verbose and finding.body:
                out.extend("    " + line for line in finding.body.splitlines()[:40])
        return out

    def text(self) -> str:
        """Everything, for copying into a bug report (credentials masked)."""
        return "\n".join(self.lines(verbose=True))

    def note_exchange(self, request: httpx2.Request, response: httpx2.Response, step: Step | None = None) -> None:
        """Record one of the sign-in's own requests and its answer, under the step it belongs to."""
        how = ""
        if step is None:
            step, how = self.classify(request)
        elif step is Step.TOKEN:
            how = _grant_name(request)
        if step is None:
            return
        if step is Step.CLIENT:
            how = "registration"
        status = response.status_code
        is_discovery = request.method == "GET" and step in (
            Step.RESOURCE_METADATA,
            Step.SERVER_METADATA,
            Step.IDP_METADATA,
        )
        ok: bool | None
        problem = ""
        if 200 <= status < 300:
            ok, words = True, ""
        elif is_discovery and 300 <= status < 500:
            ok, words, problem = None, "", "not published here"
        else:
            ok, words = False, server_words(response)
        self.note(
            Finding(
                step,
                ok,
                how=how,
                method=request.method,
                url=str(request.url),
                status=status,
                words=words,
                problem=problem,
                body=mask_body(response.content, response.headers.get("content-type", "")),
            )
        )

    def classify(self, request: httpx2.Request) -> tuple[Step | None, str]:
        """Which step a request of the SDK's flow belongs to, from what it asks for."""
        path = request.url.path
        if request.method == "GET":
            if "oauth-protected-resource" in path or str(request.url) == self.resource_metadata_url:
                return Step.RESOURCE_METADATA, ""
            if "oauth-authorization-server" in path or "openid-configuration" in path:
                return Step.SERVER_METADATA, ""
            return None, ""
        if request.headers.get("content-type", "").startswith("application/json"):
            return Step.CLIENT, "registration"
        grant = dict(parse_qsl(request.content.decode("utf-8", "replace"))).get("grant_type", "")
        if grant == TOKEN_EXCHANGE:
            return Step.TOKEN_EXCHANGE, ""
        return Step.TOKEN, _grant_name(request)


def first_request_finding(response: httpx2.Response) -> Finding | None:
    """How the first request made with a new token went, if its answer says (a 400 from a protocol
    fallback says nothing about the token: None, wait for the next)."""
    request = response.request
    status = response.status_code
    if "Authorization" not in request.headers or (status >= 400 and status not in (401, 403)):
        return None
    problem = ""
    if status == 401:
        problem = "the server does not accept the new token"
    elif status == 403:
        problem = "the server refuses this token (it may want more permissions)"
    return Finding(
        Step.FIRST_REQUEST,
        status < 400,
        method=request.method,
        url=str(request.url),
        status=status,
        words=server_words(response) if status >= 400 else "",
        problem=problem,
    )


def _grant_name(request: httpx2.Request) -> str:
    grant = dict(parse_qsl(request.content.decode("utf-8", "replace"))).get("grant_type", "")
    return {
        "authorization_code": "authorization code",
        "refresh_token": "refresh",
        "client_credentials": "client credentials",
        JWT_BEARER: "JWT bearer",
        TOKEN_EXCHANGE: "token exchange",
    }.get(grant, grant)


def server_words(response: httpx2.Response) -> str:
    """What the server said about a refusal, in its own words: an OAuth error, a JSON-RPC error, a
    `WWW-Authenticate` error or its page's text."""
    challenge = response.headers.get("WWW-Authenticate", "")
    try:
        text = response.content.decode("utf-8", "replace") if response.content else ""
    except httpx2.ResponseNotRead:  # a session's answer, still streaming to the transport
        text = ""
    words = ""
    try:
        data = json.loads(text) if text else None
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):  # JSON-RPC
            words = str(error.get("message", ""))
        elif isinstance(error, str):
            description = data.get("error_description")
            words = f"{error}: {description}" if isinstance(description, str) and description else error
    elif text:
        words = html.unescape(_TAG.sub(" ", text))
    if not words and challenge:
        words = challenge
    elif challenge and "error=" in challenge:
        words = f"{words} ({challenge})" if words else challenge
    return f'"{one_line(words)}"' if words else ""


def one_line(text: str, *, limit: int = _WORDS_CHARS) -> str:
    """`text` as part of one printable line: credentials masked, spaces collapsed, cut short."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in mask_text(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _short(url: str) -> str:
    """An address for one line: its query (an authorization request's many parameters) left out."""
    parts = urlsplit(url)
    return mask_url(f"{parts.scheme}://{parts.netloc}{parts.path}") + "?…" if parts.query else mask_url(url)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
