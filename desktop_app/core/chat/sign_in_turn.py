"""Signing in during a turn: a tool call that meets "needs sign-in" asks the user instead of failing.

The question goes through the host's `QuestionGate` (a card under the tool call in the window,
the fallback "no" on the command line); if the user signs in, the call is retried once, so a
server that keeps refusing cannot keep the user in the browser.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final, TypeVar

from desktop_app.core.asks.question import TooManyQuestions
from desktop_app.core.auth.errors import SignInRequired
from desktop_app.core.auth.question import SignInQuestion
from desktop_app.core.server_errors import ServerUnavailableError
from desktop_app.core.server_status import ServerState

if TYPE_CHECKING:
    from desktop_app.core.chat.turn_host import TurnHost

T = TypeVar("T")

READY_TIMEOUT_S: Final = 60.0


async def call_with_sign_in(host: TurnHost, server: str, call_id: str | None, call: Callable[[], Awaitable[T]]) -> T:
    """`call()`, or, when `server` wants a sign-in first, the user's sign-in and `call()` once more.

    Raises `ServerUnavailableError` (saying why) when the user does not sign in or it fails.
    """
    try:
        return await call()
    except SignInRequired as exc:
        await _sign_in(host, server, call_id, exc)
    return await call()


async def _sign_in(host: TurnHost, server: str, call_id: str | None, exc: SignInRequired) -> None:
    challenge = exc.challenge
    scopes = tuple((challenge.scope or "").split()) if challenge is not None and challenge.step_up else ()
    question = SignInQuestion(server=server, call_id=call_id, reason=exc.reason, scopes=scopes)
    try:
        agreed = await host.questions.ask(question)
    except TooManyQuestions as refused:
        raise ServerUnavailableError(str(refused)) from exc
    if not agreed:
        raise ServerUnavailableError(f"'{server}' needs sign-in, which the user declined; its tools are unavailable")
    connection = host.connection(server)
    failure = await connection.auth.sign_in(challenge)
    if failure is not None:
        raise ServerUnavailableError(f"sign-in to '{server}' did not complete: {failure}") from exc
    status = await connection.wait_settled(READY_TIMEOUT_S)
    if status.state is not ServerState.READY:
        raise ServerUnavailableError(f"'{server}' is {status.summary} after signing in") from exc
