"""A remote server's sign-in state, between its connection's sessions and the user's sign-ins.

Each session gets the SDK provider in session mode as its HTTP auth (`session_auth`). When a
request meets a 401 the stored sign-in cannot cure, `needs_sign_in` turns true and the session
is ended: the connection then waits in `wait_for_sign_in` (state "needs sign-in") instead of
restarting with backoff. A 403 `insufficient_scope` to a call keeps the session and only fails
that request; one met while connecting or listing ends the session the same way, as "needs more
permissions". What each refusal means is kept by `refusals.Refusals`.

A sign-in runs in a task of its own, started by the user (the servers panel, a sign-in card,
`mcp-desk login`) and cancellable by them; that task opens and closes the loopback listener.
Machine-to-machine servers, and organisation sign-ins whose ID token is still good, sign in by
themselves, once per failure, without a browser. Each sign-in's steps are kept (`diagnosis`,
with the first request made with its token) for the Details view.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import httpx2

from desktop_app.core.auth.browser import BrowserOpener, NoBrowser
from desktop_app.core.auth.clients import build_provider
from desktop_app.core.auth.credentials import AuthRecord, CredentialStore
from desktop_app.core.auth.doctor import Diagnosis, first_request_finding
from desktop_app.core.auth.enterprise import is_enterprise
from desktop_app.core.auth.errors import Challenge, SignInError, describe_sign_in_error
from desktop_app.core.auth.flow import BROWSER_TIMEOUT_S, renew_quietly, sign_in
from desktop_app.core.auth.idp import IdentityProviderSettings, IdTokens
from desktop_app.core.auth.paste import PastedRedirect
from desktop_app.core.auth.provider import RecordStorage
from desktop_app.core.auth.refusals import Refusals
from desktop_app.core.auth.session import EnterpriseSession, SessionAuth
from desktop_app.core.auth.sign_out import sign_out
from desktop_app.core.secret_store import SecretStoreError
from desktop_app.core.server_config import OAuthSettings, ServerConfig
from desktop_app.core.server_status import ServerState, ServerStatus

log = logging.getLogger(__name__)

CANCELLED: Final = "sign-in cancelled"


@dataclass
class SignInServices:
    """What every server's sign-in shares: where records go and how the user is shown a page."""

    credentials: CredentialStore
    opener: BrowserOpener = field(default_factory=NoBrowser)
    client_metadata_url: str | None = None
    """The app-wide Client ID Metadata Document URL (a server's own `clientMetadataUrl` wins)."""
    browser_timeout: float = BROWSER_TIMEOUT_S
    identity_provider: IdentityProviderSettings | None = None
    """The organisation's identity provider (Settings or a managed policy), for `"grant": "enterprise"`."""


def uses_oauth(config: ServerConfig) -> bool:
    """Remote, sign-in not switched off, and not already carrying an `Authorization` header the user set."""
    if config.url is None or config.is_stdio or (config.oauth is not None and not config.oauth.enabled):
        return False
    return config.oauth is not None or not any(key.lower() == "authorization" for key in config.headers)


class ServerAuth:
    """One server's sign-in: the sessions' silent auth, the wait for the user, the sign-in task."""

    def __init__(
        self,
        name: Callable[[], str],
        services: SignInServices,
        *,
        status: Callable[[], ServerStatus],
        set_status: Callable[[ServerStatus], None],
        note: Callable[[str, str], None],
        lost: Callable[[], None],
    ) -> None:
        self._name = name
        self.services = services
        self._status = status
        self._set_status = set_status
        self._note = note
        self._lost = lost
        self._refusals = refusals = Refusals(name, status)
        # What the connection's requests and listings ask of the refusals, answered by them directly.
        self.listing_refused = refusals.listing_refused
        self.gave_up = refusals.gave_up
        self.refusal = refusals.refusal
        self.unavailable = refusals.unavailable
        self._config: ServerConfig | None = None
        self._session: httpx2.Auth | None = None
        self._task: asyncio.Task[str | None] | None = None
        self._automatic_tried = False
        self.last_failure: str | None = None
        """Why the latest sign-in did not complete (None after one that did)."""
        self.diagnosis: Diagnosis | None = None
        """The latest sign-in's steps, and the first request made with its token (the Details view)."""
        self.paste = PastedRedirect()
        """The page of the sign-in under way, and where the address its browser ended on can be pasted."""
        self._verifying: Diagnosis | None = None

    # -- sessions --------------------------------------------------------------------------

    def use(self, config: ServerConfig) -> None:
        """The server's configuration (placeholders resolved), for a sign-in made before any session."""
        self._config = config

    @property
    def needs_sign_in(self) -> bool:
        """A refusal ended the last session: the connection waits for a sign-in."""
        return self._refusals.needs_sign_in

    @property
    def generation(self) -> int:
        """Bumped on every refusal and every sign-in, so a request can tell whether it met one."""
        return self._refusals.generation

    @property
    def wants_more_permissions(self) -> bool:
        """The connection waits for a sign-in with more scopes (a 403 while connecting or listing)."""
        return self._refusals.wants_more_permissions

    def session_auth(self, config: ServerConfig) -> httpx2.Auth | None:
        """The HTTP auth for a new session of `config` (placeholders resolved), or None without sign-in."""
        self._config = config
        if not uses_oauth(config):
            self._refusals.needs_sign_in = False
            self._session = None
            return None
        assert config.url is not None
        record = self.services.credentials.load(config.url) or AuthRecord(config.url)
        storage = RecordStorage(record, on_change=self._persist)
        if is_enterprise(config.oauth):
            self._session = EnterpriseSession(storage, self._renew_quietly, self._observe)
        else:
            self._session = build_provider(config.url, config.oauth or OAuthSettings(), storage, observer=self._observe)
        return self._session

    def verify_first_request(self, diagnosis: Diagnosis) -> None:
        """Note in `diagnosis` how the next request made with a token goes (`mcp-desk login` checks it)."""
        self._verifying = diagnosis

    async def _renew_quietly(self) -> AuthRecord:
        """An organisation's sign-in again, without the user (while the ID token lasts)."""
        assert self._config is not None
        return await renew_quietly(self._config, self.services.credentials, self.services.identity_provider)

    def _persist(self, record: AuthRecord) -> None:
        try:
            self.services.credentials.save(record)
        except SecretStoreError as exc:
            self._note("warning", f"the renewed sign-in could not be stored: {exc}")

    def _observe(self, response: httpx2.Response, given_up: str | None) -> bool:
        """A session request ended with `response`; True when that ends the session (see `SessionObserver`)."""
        self._note_first_request(response)
        if response.status_code < 400:
            self._automatic_tried = False
            return False
        if self._refusals.refused(response, given_up):
            self._lost()
            return True
        return False

    def _note_first_request(self, response: httpx2.Response) -> None:
        diagnosis = self._verifying
        finding = first_request_finding(response) if diagnosis is not None else None
        if diagnosis is not None and finding is not None:
            self._verifying = None
            diagnosis.note(finding)

    # -- waiting (the connection's owner task) ---------------------------------------------

    async def wait_for_sign_in(self, stop: asyncio.Event) -> bool:
        """After a session ended for want of sign-in: wait for one (or sign in alone, machine-to-machine).

        Returns False when the connection is stopping.
        """
        settings = (self._config.oauth if self._config else None) or OAuthSettings()
        refusals = self._refusals
        if (settings.machine_to_machine or is_enterprise(settings)) and not self._automatic_tried:
            self._automatic_tried = True
            if await self._attempt(refusals.challenge, interactive=False) is None:
                return True
        if not refusals.needs_sign_in:
            return True
        reason = refusals.reason
        self._note("warning" if reason else "info", f"needs sign-in: {reason}" if reason else "needs sign-in")
        self._set_status(ServerStatus(ServerState.NEEDS_SIGN_IN, reason=refusals.reason))
        waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(refusals.signed_in.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        return not stop.is_set()

    # -- signing in and out (any task) -----------------------------------------------------

    @property
    def signing_in(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def signed_in(self) -> bool:
        """Whether a sign-in is stored for this server (so there is something to sign out of)."""
        config = self._config
        if config is None or config.url is None or not uses_oauth(config):
            return False
        record = self.services.credentials.load(config.url)
        return record is not None and record.tokens is not None

    def start_sign_in(self, challenge: Challenge | None = None) -> asyncio.Task[str | None]:
        """Begin a sign-in (or join the one under way)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(
                self._run(challenge or self._refusals.challenge), name=f"sign-in:{self._name()}"
            )
        return self._task

    async def sign_in(self, challenge: Challenge | None = None) -> str | None:
        """Sign in and wait; None once signed in, else why not. The sign-in outlives a cancelled caller."""
        return await asyncio.shield(self.start_sign_in(challenge))

    def cancel_sign_in(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def close(self) -> None:
        """The connection is stopping: end any sign-in (and its listener) now."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task})  # its end, not its cancellation: a cancel of this caller still reaches it
            if not task.cancelled():
                task.result()  # it ended otherwise: what it raised, as before

    async def sign_out(self) -> str:
        """Revoke where supported and forget the sign-in; the caller reconnects."""
        config = self._config
        if config is None or config.url is None:
            return "was not signed in"
        self.cancel_sign_in()
        outcome = await sign_out(config.url, config.oauth, self.services.credentials)
        self._refusals.forget()
        self._note("info", outcome)
        return outcome

    async def _run(self, challenge: Challenge | None) -> str | None:
        """The sign-in task: a cancellation is the user's (or the connection stopping), and an outcome."""
        try:
            return await self._attempt(challenge)
        except asyncio.CancelledError:
            return CANCELLED

    async def _attempt(self, challenge: Challenge | None, *, interactive: bool = True) -> str | None:
        """One sign-in; None on success, else the line that says why not (also in the status and log)."""
        config = self._config
        if config is None or not uses_oauth(config):
            return "this server does not use sign-in"
        previous = self._status()
        waiting_for_user = previous.state is ServerState.NEEDS_SIGN_IN
        settings = config.oauth or OAuthSettings()
        silent = self._silent(settings, interactive)
        if settings.machine_to_machine:
            grant = "client credentials" if settings.grant == "client_credentials" else "the workload's JWT"
            self._note("info", f"requesting a token ({grant})")
        elif silent:
            self._note("info", "requesting a token (the organisation's sign-in)")
        else:
            self._set_status(ServerStatus(ServerState.SIGNING_IN))
            self._note("info", "signing in: waiting for the browser")
        self.diagnosis = diagnosis = Diagnosis()
        try:
            record = await sign_in(
                config,
                self.services.credentials,
                self.services.opener,
                challenge=challenge,
                browser_timeout=self.services.browser_timeout,
                client_metadata_url=self.services.client_metadata_url,
                diagnosis=diagnosis,
                paste=self.paste,
                identity_provider=self.services.identity_provider,
                interactive=interactive,
            )
        except asyncio.CancelledError:
            self._failed(CANCELLED, previous, waiting_for_user, silent)
            raise
        except SignInError as exc:
            reason: str | None = str(exc)
        except SecretStoreError as exc:
            reason = f"the sign-in could not be stored: {exc}"
        except Exception as exc:
            log.exception("sign-in to %s failed", self._name())
            reason = describe_sign_in_error(exc)
        else:
            reason = None
        if reason is not None:
            self._failed(reason, previous, waiting_for_user, silent)
            return reason
        self._refusals.cleared(challenge)
        self.last_failure = None
        if isinstance(self._session, SessionAuth | EnterpriseSession):
            self._session.reload(record)
        self._verifying = self._verifying or diagnosis
        self._note("info", "signed in")
        if waiting_for_user:
            self._set_status(ServerStatus(ServerState.STARTING))
        elif not silent:
            self._set_status(previous)
        self._refusals.signed_in.set()
        return None

    def _silent(self, settings: OAuthSettings, interactive: bool) -> bool:
        """Whether this sign-in needs no browser: machine-to-machine, or the organisation's with an ID token."""
        if settings.machine_to_machine:
            return True
        if not is_enterprise(settings):
            return False
        idp = self.services.identity_provider
        return not interactive or (idp is not None and IdTokens(self.services.credentials).load(idp) is not None)

    def _failed(self, reason: str, previous: ServerStatus, waiting_for_user: bool, silent: bool) -> None:
        self.last_failure = reason
        self._note("warning", reason if reason == CANCELLED else f"sign-in failed: {reason}")
        if waiting_for_user or self.needs_sign_in:
            self._refusals.reason = reason
            self._set_status(ServerStatus(ServerState.NEEDS_SIGN_IN, reason=reason))
        elif not silent:
            self._set_status(previous)
