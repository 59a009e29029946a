"""How MCP Desk authenticates at the token endpoint as the client of a Client ID Metadata Document (SEP-3149).

With a metadata document no registration settles the method: the authorization server reads the
document, and the client must use a method both support. The document lists its methods in
`token_endpoint_auth_methods_supported` (or, deprecated, one `token_endpoint_auth_method`; naming
none is the deprecated implicit default, `none`); the authorization server lists its own in its
metadata. MCP Desk picks from their intersection, the SDK alone would always use `none`.

Decisions:
- **MCP Desk reads the document it is configured with**, rather than a setting repeating it: the
  document is what the authorization server goes by, so only it says what will be accepted. It is
  fetched at each sign-in (not at a renewal: the method chosen is kept with the client in the sign-in
  record) through the sign-in's own sender: HTTPS only, the answer capped like every other sign-in
  answer (`limits`), the exchange noted in the diagnosis under "client identity". Not through the
  public-address guard: its address is the user's own setting, not something a server named, and may
  be on the organisation's network.
- **A document MCP Desk cannot read** (unreachable, not JSON, naming another `client_id`) does not stop
  the sign-in: the authorization server has the last word, and MCP Desk assumes the implicit default
  (`none`), saying why in the diagnosis.
- **What MCP Desk can do**: `none`, and `private_key_jwt` when the server's sign-in settings carry a
  private key (`OAuthSettings.private_key`, `signing_algorithm`; the document publishes the public key),
  preferred then because it proves the client. Methods built on a shared secret are never chosen: a
  public document cannot have a secret. A configured `token_endpoint_auth_method` narrows the choice.
- **An authorization server that lists no methods** is taken to accept the document's: RFC 8414's
  default (`client_secret_basic`) cannot apply to a client without a secret, and a server that takes
  metadata documents takes such clients.
- **No method in common**: the sign-in stops before the browser, naming both lists.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import httpx2
import jwt
from mcp.client.auth.oauth2 import OAuthContext

from desktop_app.core.auth.doctor import Step
from desktop_app.core.auth.errors import SignInError, server_text
from desktop_app.core.server_config import OAuthSettings

NONE: Final = "none"
PRIVATE_KEY_JWT: Final = "private_key_jwt"
PREFERENCE: Final = (PRIVATE_KEY_JWT, NONE)
"""The methods MCP Desk can use for a metadata document's client, the one it would rather use first."""
CLIENT_ASSERTION_TYPE: Final = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_LIFETIME_S: Final = 300
MAX_METHODS: Final = 20
"""Methods read from one list at most (a document or a server listing more is cut there)."""

DocumentReader = Callable[[str], Awaitable[httpx2.Response]]
"""GETs the document at an address through the sign-in's sender (HTTPS, capped, noted)."""


@dataclass(frozen=True)
class DocumentMethods:
    """The methods a metadata document lists, and why they are the implicit default when it could not be read."""

    methods: tuple[str, ...]
    problem: str | None = None


async def document_methods(url: str, read: DocumentReader | None) -> DocumentMethods:
    """What the document at `url` lists (`read` fetches it); the implicit default when it cannot be read."""
    if read is None:
        return DocumentMethods((NONE,), "it was not fetched")
    try:
        response = await read(url)
    except SignInError as exc:
        return DocumentMethods((NONE,), str(exc))
    if response.status_code != 200:
        return DocumentMethods((NONE,), f"HTTP {response.status_code}")
    try:
        document = json.loads(response.content)
    except ValueError:
        return DocumentMethods((NONE,), "it is not JSON")
    if not isinstance(document, dict):
        return DocumentMethods((NONE,), "it is not a JSON object")
    if document.get("client_id") != url:
        return DocumentMethods((NONE,), "its client_id is not its own address")
    listed = _methods(document.get("token_endpoint_auth_methods_supported"))
    if listed:
        return DocumentMethods(listed)
    single = document.get("token_endpoint_auth_method")
    return DocumentMethods((single,) if isinstance(single, str) and single else (NONE,))


def usable_methods(settings: OAuthSettings) -> tuple[str, ...]:
    """The methods MCP Desk can use for this server, in its order of preference."""
    usable = tuple(method for method in PREFERENCE if method != PRIVATE_KEY_JWT or settings.private_key)
    configured = settings.token_endpoint_auth_method
    return usable if configured is None else tuple(method for method in usable if method == configured)


def choose_method(url: str, document: DocumentMethods, offered: Sequence[str] | None, usable: Sequence[str]) -> str:
    """The method to use: one the document, the authorization server (`offered`) and MCP Desk all support."""
    server = _methods(list(offered or ())) or document.methods
    for method in usable:
        if method in document.methods and method in server:
            return method
    read = f"the client metadata document {url} lists {_listed(document.methods)}"
    if document.problem is not None:
        read = f"the client metadata document {url} could not be read ({document.problem}), so it counts as {NONE}"
    raise SignInError(
        f"no client authentication method in common: {read}; the authorization server accepts "
        f"{_listed(server)}; MCP Desk can use {_listed(usable)}",
        step=Step.CLIENT,
    )


def assertion_signer(settings: OAuthSettings) -> Callable[[str, str], dict[str, str]] | None:
    """For `private_key_jwt` (RFC 7523 §2.2): the form fields proving client `client_id` to `audience`
    (the authorization server's issuer); None without a private key."""
    key = settings.private_key
    if key is None:
        return None

    def sign(client_id: str, audience: str) -> dict[str, str]:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_S,
            "jti": uuid.uuid4().hex,
        }
        assertion = jwt.encode(claims, key, algorithm=settings.signing_algorithm)
        return {"client_id": client_id, "client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": assertion}

    return sign


def _methods(value: Any) -> tuple[str, ...]:
    """A list of method names as read: strings only, at most `MAX_METHODS`."""
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value[:MAX_METHODS] if isinstance(item, str) and item)


def _listed(methods: Sequence[str]) -> str:
    return ", ".join(server_text(method) for method in methods) if methods else "nothing"


async def settle_document_method(
    context: OAuthContext, settings: OAuthSettings, read: DocumentReader | None
) -> DocumentMethods | None:
    """Set the method of a metadata document's client (`choose_method`); None when the client is another kind."""
    client, url = context.client_info, context.client_metadata_url
    if client is None or url is None or client.client_id != url:
        return None
    document = await document_methods(url, read)
    metadata = context.oauth_metadata
    offered = metadata.token_endpoint_auth_methods_supported if metadata is not None else None
    client.token_endpoint_auth_method = choose_method(url, document, offered, usable_methods(settings))
    return document
