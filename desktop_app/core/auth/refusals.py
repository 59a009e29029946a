"""What a remote server's refusals said, and what they mean for its connection and its requests.

A session request that meets a 401 the stored sign-in cannot cure, or a 403 `insufficient_scope`
while connecting or listing, ends the session: the connection then waits for a sign-in instead of
restarting. Every refusal (and every sign-in) bumps `generation`, so a request that failed can
tell whether it met one, and be failed with the sign-in it needs rather than the transport's words.
After sign-ins for the same scopes that did not help, the connection or the call is given up on.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Final

import httpx2

from desktop_app.core.auth.errors import Challenge, SignInRequired
from desktop_app.core.server_errors import ServerUnavailableError
from desktop_app.core.server_status import ServerState, ServerStatus

MAX_STEP_UPS: Final = 2
"""Sign-ins for the same extra scopes before a server that keeps refusing a call is given up on."""
CONNECT_STEP_UPS: Final = 1
"""Sign-ins for more permissions before a server that keeps refusing to connect is given up on."""


def _scopes(challenge: Challenge) -> frozenset[str]:
    return frozenset((challenge.scope or "").split())


class Refusals:
    """One server's refusals: whether it waits for a sign-in, why, and for which scopes."""

    def __init__(self, name: Callable[[], str], status: Callable[[], ServerStatus]) -> None:
        self._name = name
        self._status = status
        self.needs_sign_in = False
        self.generation = 0
        """Bumped on every refusal and every sign-in, so a request can tell whether it met one."""
        self.challenge: Challenge | None = None
        self.reason: str | None = None
        """Why the server waits for a sign-in, in a few words (None: no reason to give)."""
        self.signed_in = asyncio.Event()
        """Set by a sign-in; cleared by a refusal that makes the connection wait for the next."""
        self._step_ups: Counter[frozenset[str]] = Counter()

    @property
    def wants_more_permissions(self) -> bool:
        """The connection waits for a sign-in with more scopes (a 403 while connecting or listing)."""
        return self.needs_sign_in and self.challenge is not None and self.challenge.step_up

    def refused(self, response: httpx2.Response, given_up: str | None) -> bool:
        """A session request was answered 400 or above; True when that ends the session."""
        challenge = Challenge.of(response)
        if response.status_code == 401:
            had_token = "Authorization" in response.request.headers
            self.challenge = challenge
            reason = given_up or ("the server no longer accepts the sign-in" if had_token else None)
            if reason is not None or not self.needs_sign_in:  # the first, most telling reason stays
                self.reason = reason
            self.needs_sign_in = True
            self.signed_in.clear()
            self.generation += 1
            return True
        if challenge.step_up:
            self.challenge = challenge
            self.generation += 1
            if self._status().state is ServerState.STARTING:  # connecting or listing, not a call
                self.needs_more_permissions(challenge)
                return True
        return False

    def needs_more_permissions(self, challenge: Challenge) -> None:
        """The connection itself (its handshake or a listing) was refused for want of scopes."""
        self.challenge = challenge
        self.reason = f"needs more permissions ({challenge.scope or 'not named'})"
        self.needs_sign_in = True
        self.signed_in.clear()

    def listing_refused(self, generation: int) -> None:
        """A listing of a ready server failed; if a 403 asking for more scopes was why, the connection needs them."""
        if self.generation != generation and self.challenge is not None and self.challenge.step_up:
            self.needs_more_permissions(self.challenge)

    def gave_up(self) -> str | None:
        """Why the connection stops waiting for a sign-in: one for these scopes already did not help."""
        challenge = self.challenge
        if not self.needs_sign_in or challenge is None or not challenge.step_up:
            return None
        if self._step_ups[_scopes(challenge)] < CONNECT_STEP_UPS:
            return None
        self.needs_sign_in = False
        wanted = challenge.scope or "more permissions"
        return f"still refuses to connect after signing in with more permissions ({wanted}); giving up"

    def cleared(self, challenge: Challenge | None) -> None:
        """A sign-in (for `challenge`, if it answered one) succeeded: nothing is refused any more."""
        if challenge is not None and challenge.step_up:
            self._step_ups[_scopes(challenge)] += 1
        self.needs_sign_in = False
        self.challenge = None
        self.reason = None
        self.generation += 1

    def forget(self) -> None:
        """The user signed out: earlier sign-ins for more scopes no longer count."""
        self._step_ups.clear()
        self.generation += 1

    def refusal(self, generation: int) -> ServerUnavailableError | None:
        """What to raise for a request that failed after meeting a refusal (None: it met none)."""
        if self.generation == generation or self.challenge is None:
            return None
        return self._required(self.challenge)

    def unavailable(self) -> ServerUnavailableError | None:
        """What to raise for a request while the server waits for sign-in (None: it does not)."""
        if self._status().state not in (ServerState.NEEDS_SIGN_IN, ServerState.SIGNING_IN) and not self.needs_sign_in:
            return None
        return self._required(self.challenge)

    def _required(self, challenge: Challenge | None) -> ServerUnavailableError:
        name = self._name()
        if challenge is not None and challenge.step_up:
            wanted = challenge.scope or "more permissions"
            if self._step_ups[_scopes(challenge)] >= MAX_STEP_UPS:
                return ServerUnavailableError(
                    f"'{name}' still refuses this operation after {MAX_STEP_UPS} sign-ins for {wanted}; giving up"
                )
            return SignInRequired(
                f"'{name}' needs a sign-in with more permissions ({wanted})", server=name, challenge=challenge
            )
        reason = self.reason
        message = f"'{name}' needs sign-in" + (f" ({reason})" if reason else "")
        return SignInRequired(message, server=name, challenge=challenge, reason=reason)
