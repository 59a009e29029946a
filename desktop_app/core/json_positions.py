"""Where a key sits in a JSON text: the line an error about it should name (json keeps no positions)."""

from __future__ import annotations

import bisect
import json
import re

from desktop_app.core.config_error import KeyPath

_WS = re.compile(r"[ \t\n\r]*")


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map every key path of valid JSON `text` to the 1-based line where its key (or value) starts.

    A tiny walker over the already-validated text: json has no positions, and error messages are
    only useful if they point at the line the user has to fix.
    """
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    decoder = json.JSONDecoder()
    found: dict[KeyPath, int] = {}

    def line(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + 1

    def skip(pos: int) -> int:
        match = _WS.match(text, pos)
        assert match is not None  # `*` always matches
        return match.end()

    def value(pos: int, path: KeyPath) -> int:
        pos = skip(pos)
        found.setdefault(path, line(pos))
        opener = text[pos]
        if opener not in "{[":
            return decoder.raw_decode(text, pos)[1]
        closer, pos, index = ("}" if opener == "{" else "]"), skip(pos + 1), 0
        while text[pos] != closer:
            if opener == "{":
                key, after = decoder.raw_decode(text, pos)
                child: KeyPath = (*path, key)
                found[child] = line(pos)
                pos = value(skip(after) + 1, child)  # skip the ':'
            else:
                pos = value(pos, (*path, index))
                index += 1
            pos = skip(pos)
            if text[pos] == ",":
                pos = skip(pos + 1)
        return pos + 1

    value(0, ())
    return found


def line_of(text: str, path: KeyPath) -> int | None:
    """The line of the deepest existing prefix of `path` (a missing key points at its parent)."""
    try:
        lines = key_lines(text)
    except (ValueError, IndexError):
        return None
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
