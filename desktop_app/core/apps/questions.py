"""What an app view may only do after the user agrees: open a link, use a device or the clipboard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from desktop_app.core.asks.question import Question

PERMISSION_WORDS: Final = {
    "camera": "use your camera",
    "microphone": "use your microphone",
    "camera+microphone": "use your camera and microphone",
    "geolocation": "know your location",
    "clipboard": "read and write your clipboard",
    "notifications": "show notifications",
    "screen": "capture your screen",
}
ASK_TIMEOUT: Final = 300.0
"""Unanswered for five minutes: the safe answer (no) is given and the view is told."""


@dataclass(frozen=True, kw_only=True)
class OpenLinkQuestion(Question[bool]):
    """A view asks to open `url` in the system browser; nothing opens without a yes."""

    url: str
    app: str
    warnings: tuple[str, ...] = ()
    """What about the address should make the user look twice (a look-alike host, a user@ part)."""
    timeout: float | None = ASK_TIMEOUT

    def fallback(self) -> bool:
        return False


@dataclass(frozen=True, kw_only=True)
class AppPermissionQuestion(Question[bool]):
    """A view asks for a browser permission (`PERMISSION_WORDS` keys); denied unless the user allows."""

    permission: str
    app: str
    timeout: float | None = ASK_TIMEOUT

    @property
    def wording(self) -> str:
        return PERMISSION_WORDS.get(self.permission, f"use “{self.permission}”")

    def fallback(self) -> bool:
        return False
