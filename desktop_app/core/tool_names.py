"""Model-facing tool names: `server__tool`, valid for every provider, unique and reversible.

LLM APIs accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`, while MCP server and tool
names are arbitrary strings and two servers may offer the same tool. Each tool is exposed
as `<server>__<tool>`; the map back to `(server, tool)` is a dict lookup, never a split on
`__` (server and tool names may contain `__` themselves).

Names depend only on the set of tools (inputs are sorted), so reconnecting in another
order yields the same names. Where sanitizing, truncating or a reserved client-side name
would make a name ambiguous, a short hash of the real `(server, tool)` is appended.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from typing import Final

__all__ = [
    "MAX_TOOL_NAME_LENGTH",
    "TOOL_NAME_PATTERN",
    "ToolNameMap",
    "ToolNamer",
    "build_tool_names",
    "sanitize_name_part",
]

MAX_TOOL_NAME_LENGTH: Final = 64
TOOL_NAME_PATTERN: Final = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SEPARATOR: Final = "__"

_DISALLOWED = re.compile(r"[^a-zA-Z0-9_-]")
_EMPTY_PART: Final = "unnamed"
_HASH_LENGTHS: Final = (8, 12, 16, 24, 32)
# Longest server prefix kept when a name must be truncated, so the tool part stays readable.
_MAX_SERVER_PREFIX: Final = 24


def sanitize_name_part(part: str) -> str:
    """Replace every character a provider would reject with `_`; "" becomes "unnamed"."""
    return _DISALLOWED.sub("_", part) or _EMPTY_PART


def _digest(server: str, tool: str) -> str:
    # JSON keeps ("a", "b_c") and ("a_b", "c") apart, which plain concatenation would not.
    return hashlib.sha256(json.dumps([server, tool]).encode("utf-8", "surrogatepass")).hexdigest()


def _hashed_name(server_part: str, tool_part: str, digest: str, hash_length: int) -> str:
    """`server__tool_<hash>`, truncated to fit 64 characters with the hash kept whole."""
    suffix = "_" + digest[:hash_length]
    budget = MAX_TOOL_NAME_LENGTH - len(suffix) - len(SEPARATOR)
    if len(server_part) + len(tool_part) > budget:
        # The tool part gets what a short server prefix leaves; the server takes the rest.
        tool_keep = min(len(tool_part), budget - min(len(server_part), _MAX_SERVER_PREFIX))
        server_part = server_part[: budget - tool_keep]
        tool_part = tool_part[:tool_keep]
    return f"{server_part}{SEPARATOR}{tool_part}{suffix}"


class ToolNameMap:
    """The bidirectional map for one set of tools; O(1) both ways."""

    __slots__ = ("_by_name", "_by_pair")

    def __init__(self, assignments: dict[tuple[str, str], str]) -> None:
        self._by_pair = dict(assignments)
        self._by_name = {name: pair for pair, name in assignments.items()}
        if len(self._by_name) != len(self._by_pair):
            raise ValueError("tool names must be unique")

    def exposed(self, server: str, tool: str) -> str:
        """The model-facing name; KeyError for a tool that was not in the set."""
        try:
            return self._by_pair[(server, tool)]
        except KeyError:
            raise KeyError(f"unknown tool {tool!r} on server {server!r}") from None

    def resolve(self, name: str) -> tuple[str, str] | None:
        """`(server, tool)` for a name the model called, or None for a name we never exposed."""
        return self._by_name.get(name)

    def names(self) -> list[str]:
        return list(self._by_name)

    def items(self) -> Iterator[tuple[tuple[str, str], str]]:
        return iter(self._by_pair.items())

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return len(self._by_pair)

    def __repr__(self) -> str:
        return f"ToolNameMap({self._by_pair!r})"


def build_tool_names(tools: Iterable[tuple[str, str]], reserved: frozenset[str] = frozenset()) -> ToolNameMap:
    """Assign a unique, valid, non-reserved name to every `(server, tool)` pair.

    A pair keeps the plain `server__tool` unless that is too long, reserved, or shared with
    another pair after sanitizing. Among pairs sharing one plain name, the pair that needed
    no sanitizing keeps it (ties: first in sorted order); the others get a hash suffix.
    Hashes grow until no name collides, so the result is unique even against adversarial
    tool names that look like hash suffixes.
    """
    pairs = sorted(set(tools))
    parts = {pair: (sanitize_name_part(pair[0]), sanitize_name_part(pair[1])) for pair in pairs}
    plain = {pair: f"{s}{SEPARATOR}{t}" for pair, (s, t) in parts.items()}

    claimants: dict[str, list[tuple[str, str]]] = {}
    for pair in pairs:
        claimants.setdefault(plain[pair], []).append(pair)

    assigned: dict[tuple[str, str], str] = {}
    needs_hash: list[tuple[str, str]] = []
    for name, group in claimants.items():
        if len(name) > MAX_TOOL_NAME_LENGTH or name in reserved:
            needs_hash.extend(group)
            continue
        exact = [pair for pair in group if f"{pair[0]}{SEPARATOR}{pair[1]}" == name]
        winner = exact[0] if exact else group[0]
        assigned[winner] = name
        needs_hash.extend(pair for pair in group if pair != winner)

    taken = set(assigned.values()) | reserved
    for pair in sorted(needs_hash):
        digest = _digest(*pair)
        server_part, tool_part = parts[pair]
        for length in _HASH_LENGTHS:
            candidate = _hashed_name(server_part, tool_part, digest, length)
            if candidate not in taken:
                break
        else:  # pragma: no cover - needs a sha256 prefix collision at 32 hex digits
            raise RuntimeError(f"cannot find a unique tool name for {pair!r}")
        assigned[pair] = candidate
        taken.add(candidate)
    return ToolNameMap(assigned)


class ToolNamer:
    """Builds `ToolNameMap`s against a fixed set of reserved client-side tool names."""

    __slots__ = ("reserved",)

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.reserved = frozenset(reserved)
        bad = sorted(name for name in self.reserved if not TOOL_NAME_PATTERN.match(name))
        if bad:
            raise ValueError(f"reserved names are not valid tool names: {bad}")

    def build(self, tools: Iterable[tuple[str, str]]) -> ToolNameMap:
        return build_tool_names(tools, self.reserved)
