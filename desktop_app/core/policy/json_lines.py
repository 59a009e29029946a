"""JSON read with the line of every value, so an error can name the line an administrator must fix.

Python's `json` says where the syntax breaks but not where a well-formed value sits. This reader
walks the document the same way (strings and numbers are read by `json`'s own scanner) and keeps
each value's line by its path (`("servers", "allow", 2, "args")`). A key given twice in one object
is an error here: the second would silently win in `json`, and a policy must mean one thing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

Path = tuple[str | int, ...]

_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS: Final = {"true": True, "false": False, "null": None}
MAX_DEPTH: Final = 32
"""Deeper nesting is refused (no policy needs it, and Python's recursion has a limit)."""


class JsonLinesError(ValueError):
    """The text is not one JSON value (or gives a key twice, then `field` names it); `line` is where."""

    def __init__(self, message: str, line: int, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field


@dataclass(frozen=True)
class LinedJson:
    """A parsed document and the line (1-based) each value starts on."""

    value: Any
    lines: dict[Path, int]

    def line(self, path: Path) -> int:
        """The line of the value at `path`, else of the nearest enclosing value that exists."""
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)


def field_name(path: Path) -> str:
    """`("servers", "allow", 2, "args")` -> `servers.allow[2].args` (empty path: the document)."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "the document"


def loads_with_lines(text: str) -> LinedJson:
    """Parse `text` (one JSON value); raises `JsonLinesError` with the line at fault."""
    reader = _Reader(text)
    value = reader.value((), reader.skip(0))
    end = reader.skip(reader.end)
    if end != len(text):
        raise JsonLinesError("extra text after the JSON document", reader.line_at(end))
    return LinedJson(value, reader.lines)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: dict[Path, int] = {}
        self.end = 0
        self._decoder = json.JSONDecoder()

    def line_at(self, index: int) -> int:
        return self.text.count("\n", 0, index) + 1

    def skip(self, index: int) -> int:
        match = _WHITESPACE.match(self.text, index)
        return match.end() if match else index

    def _fail(self, message: str, index: int) -> JsonLinesError:
        return JsonLinesError(message, self.line_at(index))

    def value(self, path: Path, index: int) -> Any:
        """The value starting at `index`; sets `self.end` just past it."""
        if len(path) > MAX_DEPTH:
            raise self._fail(f"nested more than {MAX_DEPTH} levels deep", index)
        self.lines[path] = self.line_at(index)
        text = self.text
        char = text[index : index + 1]
        if char == "{":
            return self._object(path, index + 1)
        if char == "[":
            return self._array(path, index + 1)
        if char == '"':
            return self._string(index)
        for word, literal in _LITERALS.items():
            if text.startswith(word, index):
                self.end = index + len(word)
                return literal
        number = _NUMBER.match(text, index)
        if number is None:
            raise self._fail("expected a value (an object, a list, text, a number, true, false or null)", index)
        self.end = number.end()
        return self._decoder.decode(number.group())

    def _string(self, index: int) -> str:
        try:
            value, self.end = json.decoder.scanstring(self.text, index + 1, True)  # type: ignore[attr-defined]
        except json.JSONDecodeError as exc:
            raise JsonLinesError(exc.msg.lower(), exc.lineno) from None
        return str(value)

    def _object(self, path: Path, index: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        index = self.skip(index)
        if self.text[index : index + 1] == "}":
            self.end = index + 1
            return result
        while True:
            if self.text[index : index + 1] != '"':
                raise self._fail("expected a key in double quotes", index)
            key = self._string(index)
            if key in result:
                raise JsonLinesError("is given twice", self.line_at(index), field_name((*path, key)))
            index = self.skip(self.end)
            if self.text[index : index + 1] != ":":
                raise self._fail(f"expected ':' after the key {key!r}", index)
            result[key] = self.value((*path, key), self.skip(index + 1))
            index = self.skip(self.end)
            char = self.text[index : index + 1]
            if char == "}":
                self.end = index + 1
                return result
            if char != ",":
                raise self._fail("expected ',' or '}' after a value", index)
            index = self.skip(index + 1)

    def _array(self, path: Path, index: int) -> list[Any]:
        result: list[Any] = []
        index = self.skip(index)
        if self.text[index : index + 1] == "]":
            self.end = index + 1
            return result
        while True:
            result.append(self.value((*path, len(result)), index))
            index = self.skip(self.end)
            char = self.text[index : index + 1]
            if char == "]":
                self.end = index + 1
                return result
            if char != ",":
                raise self._fail("expected ',' or ']' after a value", index)
            index = self.skip(index + 1)
