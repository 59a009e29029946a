"""What MCP Desk adds to the SDK's OAuth providers, and where the specification says otherwise.

`mcp.client.auth.OAuthClientProvider` and its client-credentials extensions do discovery,
registration, PKCE, the token exchange and step-up; `DeskAuth` is mixed in ahead of them (see
`clients` for the concrete classes). Where the SDK and the specification disagree, the overrides
below follow the specification and say so (the 2025-06-18, 2025-11-25 and 2026-07-28 revisions
of "Authorization").
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, fields, replace
from typing import Final
from urllib.parse import urlencode, urljoin, urlsplit

import httpx2
from mcp.client.auth import PKCEParameters, TokenStorage
from mcp.client.auth.oauth2 import OAuthContext
from mcp.client.auth.utils import issuers_match, union_scopes
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from desktop_app.core.auth.client_auth import DocumentMethods, DocumentReader, assertion_signer, settle_document_method
from desktop_app.core.auth.credentials import AuthRecord
from desktop_app.core.auth.doctor import Diagnosis, Step
from desktop_app.core.auth.dpop import Proofs, advertises_dpop, new_key, read_token_type
from desktop_app.core.auth.errors import Challenge, SignInError, server_text
from desktop_app.core.auth.limits import check_token_sizes
from desktop_app.core.auth.loopback import CallbackParams
from desktop_app.core.server_config import OAuthSettings

_LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})


def is_secure_endpoint(url: str) -> bool:
    """HTTPS, or plain HTTP to this machine: where authorization traffic may go (OAuth 2.1 §1.5)."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK_HOSTS)


class RecordStorage(TokenStorage):
    """The SDK's `TokenStorage` over one `AuthRecord`; `on_change` decides where changes go."""

    def __init__(self, record: AuthRecord, on_change: Callable[[AuthRecord], None] | None = None) -> None:
        self.record = record
        self._on_change = on_change
        self._dpop_bound = False

    async def get_tokens(self) -> OAuthToken | None:
        return self.record.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        check_token_sizes(tokens)  # before the record changes, so nothing oversized is ever written
        self._replace(self.record.with_tokens(tokens, dpop_bound=self._dpop_bound))

    def expect_dpop(self, bound: bool) -> None:
        """Whether the next tokens stored are DPoP-bound (the SDK's token model cannot say so)."""
        self._dpop_bound = bound

    def keep_dpop_key(self, key: str) -> None:
        self._replace(replace(self.record, dpop_key=key))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.record.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._replace(replace(self.record, client=client_info))

    def forget_tokens(self) -> None:
        self._replace(self.record.with_tokens(None))

    def _replace(self, record: AuthRecord) -> None:
        self.record = record
        if self._on_change is not None:
            self._on_change(record)


@dataclass
class _SpecContext(OAuthContext):
    """The SDK's flow state, with MCP Desk's renewal margin and the specification's resource rule."""

    renew_at: float | None = None
    assertion: Callable[[str, str], dict[str, str]] | None = None
    """Signs `private_key_jwt` proofs for a metadata document's client (`client_auth`); None without a key."""

    def update_token_expiry(self, token: OAuthToken) -> None:
        super().update_token_expiry(token)
        self.renew_at = AuthRecord(self.server_url).with_tokens(token).renew_at

    def is_token_valid(self) -> bool:
        # Renew a little before expiry; the SDK waits until the token has expired.
        deadline = self.renew_at if self.renew_at is not None else self.token_expiry_time
        tokens = self.current_tokens
        return bool(tokens and tokens.access_token and (deadline is None or time.time() < deadline))

    def prepare_token_auth(
        self, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[dict[str, str], dict[str, str]]:
        # The SDK leaves `private_key_jwt` to its client-credentials provider; a document's client proves
        # itself the same way at the code exchange and each refresh (RFC 7523 §2.2).
        client, metadata, sign = self.client_info, self.oauth_metadata, self.assertion
        if sign and client and metadata and client.token_endpoint_auth_method == "private_key_jwt":
            return {**data, **sign(client.client_id, str(metadata.issuer))}, headers or {}
        return super().prepare_token_auth(data, headers)

    def should_include_resource_param(self, protocol_version: str | None = None) -> bool:
        # Spec ("Resource Parameter Implementation"): clients MUST send `resource` in authorization and
        # token requests "regardless of whether authorization servers support it". The SDK leaves it out
        # when no protected-resource metadata was found and the request carried no recent protocol header.
        return True


@dataclass(frozen=True)
class Browser:
    """How a sign-in reaches the user: show the authorization page, then wait for its redirect."""

    open: Callable[[str], Awaitable[None]]
    receive: Callable[[], Awaitable[CallbackParams]]


class DeskAuth:
    """MCP Desk's additions to an SDK provider; mixed in ahead of it."""

    context: OAuthContext

    def _desk_setup(
        self,
        storage: RecordStorage,
        settings: OAuthSettings,
        *,
        fixed_client: OAuthClientInformationFull | None = None,
        challenge: Challenge | None = None,
        browser: Browser | None = None,
        diagnosis: Diagnosis | None = None,
        read_document: DocumentReader | None = None,
    ) -> None:
        """`read_document` fetches a Client ID Metadata Document, to learn the methods it lists (`client_auth`)."""
        sdk = self.context
        self.context = context = _SpecContext(
            **{f.name: getattr(sdk, f.name) for f in fields(OAuthContext) if f.init and f.name != "lock"}
        )
        self.storage = storage
        self.settings = settings
        self._fixed_client = fixed_client
        self._challenge = challenge
        self._browser = browser
        self._diagnosis = diagnosis or Diagnosis()
        self._read_document = read_document
        if not settings.machine_to_machine:
            context.assertion = assertion_signer(settings)
        self.proofs = Proofs()
        self._documents: dict[str, dict[str, object]] = {}
        """Authorization-server metadata as served, by token endpoint (for what the SDK's model leaves out)."""

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, with a DPoP proof on each token request where the authorization server takes them."""
        flow: AsyncGenerator[httpx2.Request, httpx2.Response] = super()._auth_flow(request)  # type: ignore[misc]
        try:
            outgoing = await flow.__anext__()
            while True:
                key = self._dpop_key(outgoing)
                if key is not None:
                    self.proofs.sign(outgoing, key)
                response = yield outgoing
                if outgoing.method == "GET":
                    self._note_document(response)
                if key is not None:
                    if self.proofs.wants_retry(response):  # RFC 9449 §8: once more, with the server's nonce
                        self.proofs.sign(outgoing, key)
                        response = yield outgoing
                    response = self._read_token_type(response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _dpop_key(self, request: httpx2.Request) -> str | None:
        """The key to prove a token request with: the server's, or a new one where its authorization server
        advertises DPoP."""
        metadata = self.context.oauth_metadata
        endpoint = httpx2.URL(str(metadata.token_endpoint)) if metadata is not None else None
        if request.method != "POST" or request.url != endpoint:
            return None
        key = self.storage.record.dpop_key
        if key is None and advertises_dpop(self._documents.get(str(endpoint))):
            key = new_key()
            self.storage.keep_dpop_key(key)
        return key

    def _note_document(self, response: httpx2.Response) -> None:
        if response.status_code != 200:
            return
        try:
            document = json.loads(response.content)
        except (ValueError, httpx2.ResponseNotRead):
            return
        if isinstance(document, dict) and isinstance(document.get("token_endpoint"), str):
            self._documents[str(httpx2.URL(document["token_endpoint"]))] = document

    def _read_token_type(self, response: httpx2.Response) -> httpx2.Response:
        response, bound = read_token_type(response)
        self.storage.expect_dpop(bound)
        return response

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        record = self.storage.record
        context = self.context
        context.token_expiry_time = record.expires_at
        if isinstance(context, _SpecContext):
            context.renew_at = record.renew_at
        if self._fixed_client is not None:
            context.client_info = self._fixed_client  # a pre-registered client comes first (spec order)
        elif context.client_info is not None and not self._reusable(context.client_info):
            context.client_info = None
        if record.metadata is not None:
            # Renewal after a restart goes to the token endpoint found at sign-in, not to the SDK's
            # `<server origin>/token` guess; a step-up reuses the same authorization server.
            context.oauth_metadata = record.metadata
            context.protected_resource_metadata = record.resource_metadata
            context.auth_server_url = record.issuer if record.resource_metadata is not None else None

    def _reusable(self, client: OAuthClientInformationFull) -> bool:
        """A stored dynamic registration still fits: its redirect URI is the one this sign-in listens on."""
        redirect_uris = self.context.client_metadata.redirect_uris
        if redirect_uris is None or client.client_id == self.context.client_metadata_url:
            return True
        return redirect_uris[0] in (client.redirect_uris or [])

    def _select_authorization_server(self, advertised: list[str]) -> str:
        issuer = self.settings.issuer
        if issuer is None:
            return advertised[0]
        # Spec (2026-07-28, "Authorization Server Binding"): pre-registered credentials belong to one
        # authorization server; when the resource points elsewhere, say so instead of trying them there.
        for server in advertised:
            if issuers_match(server, issuer):
                return server
        raise SignInError(
            f"the server now names another authorization server ({advertised[0]}) than {issuer}",
            step=Step.RESOURCE_METADATA,
        )

    def _settle_scope(self) -> None:
        """The scope to ask for, written where the SDK's requests and token record read it."""
        context = self.context
        challenge = self._challenge
        if challenge is not None and challenge.step_up:
            return  # the SDK asks for the union of what was granted and what is challenged (SEP-2350)
        resource_scopes = context.protected_resource_metadata and context.protected_resource_metadata.scopes_supported
        scope: str | None
        if self.settings.scopes:
            scope = " ".join(self.settings.scopes)
        elif (challenge is None or challenge.scope is None) and not resource_scopes:
            # Spec ("Scope Selection Strategy"): the challenge's `scope`, else the protected resource's
            # `scopes_supported`, else no `scope` at all. The SDK falls back to the authorization
            # server's whole `scopes_supported`, asking for far more than this server needs.
            scope = None
        else:
            return
        metadata = context.oauth_metadata
        if (
            scope is not None
            and metadata is not None
            and "offline_access" in (metadata.scopes_supported or [])
            and "refresh_token" in context.client_metadata.grant_types
        ):
            scope = union_scopes(scope, "offline_access")  # only when advertised (spec, "Refresh Tokens")
        context.client_metadata.scope = scope

    def _negotiate_client_auth(self) -> None:
        """Pick the token endpoint auth method of a pre-registered client from what the server offers."""
        client = self.context.client_info
        if self._fixed_client is None or client is None or client.token_endpoint_auth_method == "private_key_jwt":
            return
        chosen = self.settings.token_endpoint_auth_method
        if chosen is None:
            offered = self.context.oauth_metadata and self.context.oauth_metadata.token_endpoint_auth_methods_supported
            if client.client_secret is None:
                chosen = "none"
            elif not offered or "client_secret_basic" in offered:
                chosen = "client_secret_basic"  # RFC 8414's default when the server lists none
            else:
                chosen = "client_secret_post" if "client_secret_post" in offered else "client_secret_basic"
        client.token_endpoint_auth_method = chosen

    async def _perform_authorization(self) -> httpx2.Request:
        context = self.context
        if context.protected_resource_metadata is not None and context.oauth_metadata is None:
            # Spec (2025-06-18 and later): the authorization server named by the resource must be
            # discovered through its metadata. The SDK falls back to `/authorize`, `/token` and
            # `/register` at the MCP server's origin, a rule meant only for 2025-03-26 servers
            # without any metadata, and would send the user (and credentials) to the wrong place.
            server = context.auth_server_url or "the authorization server"
            raise SignInError(f"{server} publishes no usable authorization server metadata", step=Step.SERVER_METADATA)
        self._settle_scope()
        self._negotiate_client_auth()
        read = None if self._fixed_client else await settle_document_method(context, self.settings, self._read_document)
        self._note_client(read)
        return await super()._perform_authorization()  # type: ignore[misc,no-any-return]

    def _note_client(self, document: DocumentMethods | None = None) -> None:
        """Tell the doctor which client identity the sign-in uses (a document's: with the method chosen)."""
        client = self.context.client_info
        if client is None or client.client_id is None:
            return
        if self._fixed_client is not None:
            how = "pre-registered"
        elif client.client_id == self.context.client_metadata_url:
            unread = f"; the document could not be read: {document.problem}" if document and document.problem else ""
            how = f"metadata document ({client.token_endpoint_auth_method}{unread})"
        else:
            how = "stored registration"
        self._diagnosis.note_client(Step.CLIENT, how, client.client_id)

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        """The browser leg, rewritten for the specification's checks (the SDK's version lacks them)."""
        context = self.context
        metadata = context.oauth_metadata
        client = context.client_info
        redirect_uris = context.client_metadata.redirect_uris
        if client is None or redirect_uris is None or self._browser is None:
            raise SignInError("this sign-in cannot use a browser", step=Step.BROWSER)
        if metadata is not None and "S256" not in (metadata.code_challenge_methods_supported or []):
            # Spec ("Authorization Code Protection"): clients MUST verify PKCE support in the metadata
            # and refuse to proceed when `code_challenge_methods_supported` is absent. The SDK does not.
            # (Servers without any metadata, the 2025-03-26 fallback, predate this check.)
            raise SignInError(
                "the authorization server does not support PKCE (S256); refusing to sign in", step=Step.SERVER_METADATA
            )
        if metadata is not None:
            endpoint = str(metadata.authorization_endpoint)
        else:
            endpoint = urljoin(context.get_authorization_base_url(context.server_url), "/authorize")
        if not is_secure_endpoint(endpoint):
            raise SignInError(f"refusing to sign in at {endpoint}: not HTTPS", step=Step.SERVER_METADATA)
        pkce = PKCEParameters.generate()
        state = secrets.token_urlsafe(32)
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": str(redirect_uris[0]),
            "state": state,
            "code_challenge": pkce.code_challenge,
            "code_challenge_method": "S256",
            "resource": context.get_resource_url(),
        }
        scope = context.client_metadata.scope
        if scope:
            params["scope"] = scope
            if "offline_access" in scope.split():
                params["prompt"] = "consent"  # OpenID Connect asks for consent to offline access
        page = f"{endpoint}?{urlencode(params)}"
        self._diagnosis.note_page(Step.BROWSER, page)
        await self._browser.open(page)
        result = await self._browser.receive()
        self._check_response(result, state)
        self._diagnosis.passed(Step.BROWSER, "code received")
        assert result.code is not None
        return result.code, pkce.code_verifier

    def _check_response(self, result: CallbackParams, state: str) -> None:
        """State, then issuer (RFC 9207 as the 2026-07-28 revision tabulates it), and only then any error."""
        if result.state is None or not secrets.compare_digest(result.state, state):
            raise SignInError(
                "the browser returned a response to another sign-in (state mismatch); ignored it", step=Step.BROWSER
            )
        metadata = self.context.oauth_metadata
        expected = str(metadata.issuer) if metadata is not None else self._expected_issuer()  # type: ignore[attr-defined]
        if result.iss is not None:
            # Spec (2026-07-28): a present `iss` is compared whether or not the server advertises it.
            if result.iss != expected:
                raise SignInError(
                    "the sign-in came back from another authorization server than the one asked", step=Step.BROWSER
                )
        elif metadata is not None and metadata.authorization_response_iss_parameter_supported:
            raise SignInError(
                "the authorization server's response did not name its issuer, as it promised to", step=Step.BROWSER
            )
        if result.error == "access_denied":
            raise SignInError("the sign-in was declined in the browser", step=Step.BROWSER)
        if result.error:
            error = server_text(result.error)
            detail = f"{error}: {server_text(result.error_description)}" if result.error_description else error
            raise SignInError(f"the authorization server refused the sign-in ({detail})", step=Step.BROWSER)
        if not result.code:
            raise SignInError("the browser returned no authorization code", step=Step.BROWSER)
