"""Running an SDK sign-in flow by hand: every request it makes checked, capped and recorded.

The SDK's providers are httpx auth generators that start from a refused request. `drive` hands
one the server's refusal, sends each request it yields through a `Sender` (authorization traffic
only to HTTPS or this machine, answers read with a cap, each exchange noted in the `Diagnosis`
under its step), and stops once the flow retries the refused request with a token.
"""

from __future__ import annotations

import json
import logging
from typing import Final

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthRegistrationError
from mcp.shared.auth import OAuthMetadata
from pydantic import ValidationError

from desktop_app.core.auth.doctor import Diagnosis, Finding, Step, origin, server_words
from desktop_app.core.auth.errors import Challenge, SignInCancelled, SignInError, describe_sign_in_error, failed_step
from desktop_app.core.auth.limits import send_capped
from desktop_app.core.auth.masking import mask_body
from desktop_app.core.auth.provider import is_secure_endpoint
from desktop_app.core.server_errors import transport_failure

log = logging.getLogger(__name__)

_AS_METADATA_PATHS: Final = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


class Sender:
    """Sends a sign-in's own requests (metadata, registration, token) on a client of its own."""

    def __init__(self, http: httpx2.AsyncClient, server_url: str, diagnosis: Diagnosis) -> None:
        self.http = http
        self.server_url = server_url
        self.diagnosis = diagnosis
        self.notes: list[str] = []
        """Why an authorization server's metadata could not be used, for a clearer final error."""
        self.answers: dict[str, bytes] = {}
        """The bodies of the documents fetched (metadata), by address."""

    async def send(self, request: httpx2.Request, *, step: Step | None = None) -> httpx2.Response:
        url = str(request.url)
        step = step or self.diagnosis.classify(request)[0]
        if (request.method != "GET" or origin(url) != origin(self.server_url)) and not is_secure_endpoint(url):
            # Spec ("Communication Security"): authorization server endpoints MUST be served over HTTPS.
            # The SDK sends wherever the metadata points.
            raise SignInError(f"refusing to send sign-in traffic to {origin(url)}: it is not HTTPS", step=step)
        try:
            response = await send_capped(self.http, request)
        except httpx2.TransportError as exc:
            raise SignInError(f"cannot reach {origin(url)} ({transport_failure(exc)})", step=step) from exc
        except SignInError as exc:
            exc.step = exc.step or step
            raise
        self.diagnosis.note_exchange(request, response, step)
        if request.method == "GET":
            self.answers[url] = response.content
        if request.method == "GET" and any(path in request.url.path for path in _AS_METADATA_PATHS):
            self._note_metadata_problem(response)
        return response

    def _note_metadata_problem(self, response: httpx2.Response) -> None:
        where = origin(str(response.request.url))
        if response.status_code >= 500:
            self.notes.append(f"the authorization server at {where} is not working (HTTP {response.status_code})")
        elif response.status_code == 200:
            try:
                OAuthMetadata.model_validate_json(response.content)
            except (ValidationError, json.JSONDecodeError):
                self.notes.append(f"the authorization server at {where} sent metadata MCP Desk cannot read")
                self.diagnosis.fail(Step.SERVER_METADATA, "metadata MCP Desk cannot read (not RFC 8414 metadata)")


async def drive(sender: Sender, provider: httpx2.Auth, probe: httpx2.Request, challenge: Challenge) -> None:
    """Run `provider`'s flow from `challenge` to the point where it retries `probe` with a new token.

    Raises `SignInError` with one line for the user; the diagnosis names the step that broke.
    """
    try:
        await _run(sender, provider, probe, challenge)
    except SignInError as exc:
        fail(sender.diagnosis, exc, str(exc))
        raise


def fail(diagnosis: Diagnosis, exc: BaseException, line: str) -> None:
    """Mark the step `exc` broke (or the last one reached) failed, with `line`."""
    step = failed_step(exc) or diagnosis.last_step()
    if step is not None:
        diagnosis.fail(step, line)


async def _run(sender: Sender, provider: httpx2.Auth, probe: httpx2.Request, challenge: Challenge) -> None:
    flow = provider.async_auth_flow(probe)
    challenged = False
    try:
        request = await flow.__anext__()
        while True:
            if request is probe:
                if challenged:
                    return  # the SDK retries the refused request with its new token: signed in
                challenged = True
                response = challenge.response(probe)
            else:
                if request.method != "GET":
                    registering = request.headers.get("content-type", "").startswith("application/json")
                    _require_metadata(provider, sender.notes, registering=registering)
                response = await sender.send(request)
            request = await flow.asend(response)
    except StopAsyncIteration:
        raise SignInError("the sign-in ended without a token") from None
    except SignInError as exc:
        if sender.notes and "publishes no usable" in str(exc):
            raise SignInError(sender.notes[-1], step=exc.step) from exc
        raise
    except OAuthRegistrationError as exc:
        context = provider.context if isinstance(provider, OAuthClientProvider) else None
        if context is not None and context.oauth_metadata is None and context.protected_resource_metadata is None:
            raise SignInError(
                "the server does not say how to sign in (it publishes no OAuth metadata)", step=Step.CLIENT
            ) from exc
        raise SignInError(describe_sign_in_error(exc), step=Step.CLIENT) from exc
    except Exception as exc:
        log.debug("sign-in failed", exc_info=True)
        raise SignInError(describe_sign_in_error(exc), step=failed_step(exc)) from exc
    finally:
        await flow.aclose()


def _require_metadata(provider: httpx2.Auth, notes: list[str], *, registering: bool) -> None:
    """Stop before registering or exchanging anything when the named authorization server was not found.

    Spec (2025-06-18 and later): an authorization server named by the protected resource is used
    through its metadata. The SDK then falls back to `/register`, `/authorize` and `/token` at
    the MCP server's own origin, a rule meant only for 2025-03-26 servers without metadata.
    """
    if not isinstance(provider, OAuthClientProvider):
        return
    context = provider.context
    if context.protected_resource_metadata is not None and context.oauth_metadata is None:
        server = context.auth_server_url or "the authorization server"
        message = notes[-1] if notes else f"{server} publishes no usable authorization server metadata"
        raise SignInError(message, step=Step.SERVER_METADATA)
    metadata = context.oauth_metadata
    if registering and metadata is not None and metadata.registration_endpoint is None:
        # The SDK would post MCP Desk's registration to `/register` on the MCP server's own origin,
        # a 2025-03-26 fallback for servers without metadata; this one has metadata and no registration.
        raise SignInError(
            "the authorization server offers no registration and no Client ID Metadata Documents; "
            'ask its administrator for a client ID and set it as "clientId"',
            step=Step.CLIENT,
        )


async def check_page(sender: Sender, page: str, exc: SignInCancelled) -> SignInError:
    """The browser never came back: load the authorization page here, to see whether it was refused
    (an unknown redirect URI, a client the server does not know) rather than left unfinished."""
    try:
        response = await send_capped(sender.http, httpx2.Request("GET", page))
    except (httpx2.TransportError, SignInError):
        return exc
    status = response.status_code
    location = response.headers.get("location", "")
    words = server_words(response)
    if status >= 400 or (300 <= status < 400 and "error=" in location):
        if not words and location:
            words = f'"{location.split("?", 1)[-1]}"'
        line = f"the authorization server refused the sign-in page (HTTP {status}{': ' + words if words else ''})"
        sender.diagnosis.note(
            Finding(
                Step.BROWSER,
                False,
                method="GET",
                url=page,
                status=status,
                words=words,
                problem="the authorization server refused the sign-in page",
                body=mask_body(response.content, response.headers.get("content-type", "")),
            )
        )
        return SignInError(line, step=Step.BROWSER)
    return exc
