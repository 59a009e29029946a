"""Entry text from an install: everything the user and the publisher wrote stays literal.

`servers.json` values are expanded at connect time (`${VAR}`, `${secret:NAME}`), so a placeholder
written by a registry publisher or a bundle author would name any stored secret, sign-in record or
environment variable of the user's. Plans therefore assemble each value from raw text, mark where
this install's own secrets go with `SecretSlots.slot`, and write the finished value once with
`SecretSlots.entry`: all text literal, only the marked slots placeholders. Writing the finished
value, not its pieces, matters: a `$` at the end of one piece and a `{…}` at the start of the next
would otherwise meet as a placeholder in the entry.
"""

from __future__ import annotations

import secrets

from desktop_app.core.expansion import literal, secret_placeholder
from desktop_app.core.registry.errors import PlanError


class SecretSlots:
    """Marks for this install's secrets inside raw text, unguessable by whoever wrote the text."""

    def __init__(self) -> None:
        self._mark = f"\x00{secrets.token_hex(12)}:"

    def slot(self, name: str) -> str:
        """Raw text standing for secret `name` until `entry` writes it as `${secret:name}`."""
        secret_placeholder(name)  # refuses a name the placeholder syntax cannot carry
        return f"{self._mark}{name}\x00"

    def holds_secret(self, text: str) -> bool:
        return self._mark in text

    def entry(self, text: str) -> str:
        """`text` as entry text: literal, except the secret slots."""
        head, *slots = text.split(self._mark)
        parts = [literal(head)]
        for piece in slots:
            name, _, rest = piece.partition("\x00")
            if parts[-1].endswith("$"):
                raise PlanError("a value cannot have a '$' right before a secret: put a space or other text between")
            parts += [secret_placeholder(name), literal(rest)]
        return "".join(parts)
