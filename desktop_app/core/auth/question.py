"""The sign-in question: a tool call met a server that wants the user to sign in (again, or for more)."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.core.asks.question import Question


@dataclass(frozen=True, kw_only=True)
class SignInQuestion(Question[bool]):
    """Sign in to `server` so the call can go on? True: the user chose to sign in (the app then does)."""

    reason: str | None = None
    """Why the server refused, when it is more than "not signed in" (expired, revoked, …)."""
    scopes: tuple[str, ...] = ()
    """The extra permissions a step-up asks for; empty for an ordinary sign-in."""

    def fallback(self) -> bool:
        return False
