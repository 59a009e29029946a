"""A configuration problem worth showing to the user as is: the file, the line, the field and what is wrong.

Users hand-edit their files: an error is only useful when it points at what they must fix.
"""

from __future__ import annotations

KeyPath = tuple[str | int, ...]
"""Where a value sits in a JSON document: `("mcpServers", "github", "args", 2)`."""


class ConfigError(Exception):
    """A configuration problem worth showing to the user as is: where it is and what is wrong."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        key_path: KeyPath = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        # Where in the JSON document the problem is; used to find `line` once the text is known.
        self.key_path = key_path

    def __str__(self) -> str:
        if self.file and self.line is not None:
            return f"{self.file}, line {self.line}: {self.message}"
        if self.file:
            return f"{self.file}: {self.message}"
        return self.message


def field_name(path: KeyPath) -> str:
    """`("mcpServers", "github", "args", 2)` -> `mcpServers.github.args[2]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def schema_error(path: KeyPath, problem: str) -> ConfigError:
    """`problem` at `path`, worded for the user: "mcpServers.github.args[2] must be a string"."""
    name = field_name(path)
    return ConfigError(f"{name or 'the document'} {problem}", field=name or None, key_path=path)
