"""How a refusal by the organisation's policy reads, in the window and on the command line alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

BLOCKED: Final = "blocked by your organisation's policy"
FIXED: Final = "set by your organisation's policy"


@dataclass(frozen=True)
class Refusal:
    """Which rule refused what: `str()` is the sentence the user sees."""

    what: str
    """In words, e.g. "bundles cannot be installed"."""
    field: str
    """The rule in the policy file, e.g. `features.bundles` or `servers.allow[2]`."""
    line: int | None = None

    def __str__(self) -> str:
        return f"{BLOCKED}: {self.what} ({self.field})"

    @property
    def where(self) -> str:
        """The rule with its line, for an administrator: `features.bundles, line 7`."""
        return self.field + (f", line {self.line}" if self.line is not None else "")
