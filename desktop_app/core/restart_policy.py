"""When a dead server is tried again: exponential backoff with a cap and a reset after health."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RestartPolicy:
    """Backoff for restarting a dead server: 1 s doubling to 60 s, reset after a healthy minute."""

    first_delay: float = 1.0
    max_delay: float = 60.0
    max_attempts: int = 8
    healthy_after: float = 60.0

    def delay(self, attempt: int) -> float:
        return float(min(self.first_delay * 2 ** (attempt - 1), self.max_delay))
