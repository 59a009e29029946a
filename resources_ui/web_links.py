"""Which links leave the app: a document's or a message's, opened in the user's browser (or mail
client) only after the user says yes."""

from __future__ import annotations

from typing import Final

WEB_SCHEMES: Final = frozenset({"http", "https", "mailto"})
