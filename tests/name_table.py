"""A resolver for tests: host names answered from a table, never from real DNS."""

from __future__ import annotations

import socket
from collections.abc import Sequence

SOME_PUBLIC_ADDRESS = "93.184.215.14"
"""Only ever returned by a resolver for a check; nothing connects to it."""


class NameTable:
    """A table of names, recording each lookup; a name may answer differently on each lookup (rebinding),
    and a name not in the table does not resolve.

    Names are given as keywords with `_` for `.`: `NameTable(evil_example="127.0.0.1")`."""

    def __init__(self, **answers: str | list[str]) -> None:
        self._answers = {name.replace("_", "."): a if isinstance(a, list) else [a] for name, a in answers.items()}
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.asked.append(host)
        if host not in self._answers:
            raise socket.gaierror(socket.EAI_NONAME, f"{host} is not known")
        answers = self._answers[host]
        return [answers[min(self.asked.count(host), len(answers)) - 1]]
