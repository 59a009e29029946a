"""What a sandboxed server was refused, in its log without flooding it: a server retrying a refused host in a
loop, or trying hundreds of hosts, leaves a handful of lines that say how much it tried."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Final

Note = Callable[[str, str], None]
"""Adds a line (level, text) to the server's log."""

NAMED_HOSTS: Final = 20
"""Hosts named one by one; refusals of further hosts are only counted."""
NOT_ALLOWED: Final = "not in allowedDomains"
"""The reason for a host the entry does not list (the one refusal the user may lift by listing it)."""
_FIRST_REFUSAL: Final = "sandbox refused a connection to {host} ({reason})"
_FIRST_REFUSAL_RE: Final = re.compile(r"sandbox refused a connection to (\S+) \((.+)\)")


def refused_host(line: str) -> tuple[str, str] | None:
    """(host, reason) of the log's first-refusal line, so a reader gets the data back, not only the words."""
    match = _FIRST_REFUSAL_RE.fullmatch(line)
    return (match[1], match[2]) if match else None


class Refusals:
    """Counts refused connections per host: the first to each host is logged, then every tenfold count."""

    def __init__(self, note: Note) -> None:
        self._note = note
        self._counts: Counter[str] = Counter()
        self._unnamed = 0
        self._told = 0
        """Refusals the log has already accounted for."""

    def refused(self, host: str, reason: str) -> None:
        """One refused connection to `host`, for `reason` (as the log words it: "not in allowedDomains")."""
        if host not in self._counts and len(self._counts) >= NAMED_HOSTS:
            self._unnamed += 1
            if self._unnamed == 1:
                self._say(f"sandbox refused connections to more than {NAMED_HOSTS} hosts; counting the rest")
            return
        self._counts[host] += 1
        count = self._counts[host]
        if count == 1:
            self._say(_FIRST_REFUSAL.format(host=host, reason=reason))
        elif str(count).rstrip("0") == "1":
            self._say(f"sandbox refused {count} connections to {host} so far", told=count - 1)

    @property
    def hosts(self) -> dict[str, int]:
        """Each named refused host and how many connections to it were refused."""
        return dict(self._counts)

    def summarise(self) -> None:
        """When the server stops: the totals, if more was refused than the log has said."""
        total = self._counts.total() + self._unnamed
        if total > self._told:
            hosts = len(self._counts) + (1 if self._unnamed else 0)
            more = " or more" if self._unnamed else ""
            self._note("info", f"sandbox refused {total} connections in all, to {hosts}{more} hosts")

    def _say(self, text: str, told: int = 1) -> None:
        self._told += told
        self._note("warning", text)
