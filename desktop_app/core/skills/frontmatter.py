"""A `SKILL.md`'s front matter, read back and held against what its entry said, and the fields that ask for more.

The user is shown the entry; the model gets the file. The file's YAML front matter must say what
the entry says, field by field, or the skill is not loaded. Fields such as `allowed-tools` ask the
host for permissions: MCP Desk never grants them (a skill cannot widen what runs without asking),
it only shows the user that the skill asked.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from typing import Any, Final

MAX_FRONTMATTER_CHARS: Final = 64 * 1024
WIDENING_FIELDS: Final = ("allowed-tools", "allowed_tools", "allowedTools", "permissions", "hooks")
"""Front matter that would grant tools, permissions or code to run: ignored, and shown as asked for."""


class FrontmatterError(ValueError):
    """The file has no readable front matter."""


def split(text: str) -> tuple[str, str]:
    """(the front matter's YAML, the body) of a `SKILL.md`."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("it does not begin with front matter (---)")
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    raise FrontmatterError("its front matter is never closed (---)")


def parse(yaml_text: str) -> dict[str, Any]:
    """The front matter as JSON would carry it; refuses aliases (a few lines could stand for gigabytes)."""
    import yaml  # type: ignore[import-untyped]  # here, not at start-up: only loading a skill needs it

    class _NoAliases(yaml.SafeLoader):  # type: ignore[misc]
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise FrontmatterError("its front matter uses YAML aliases")
            return super().compose_node(parent, index)

    if len(yaml_text) > MAX_FRONTMATTER_CHARS:
        raise FrontmatterError(f"its front matter is longer than {MAX_FRONTMATTER_CHARS:,} characters")
    try:
        data = yaml.load(yaml_text, Loader=_NoAliases)
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"its front matter is not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise FrontmatterError("its front matter is not a mapping")
    plain: dict[str, Any] = json.loads(json.dumps(data, default=_as_text))  # dates as the text they were written as
    return plain


def _as_text(value: object) -> str:
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return str(value)


def difference(declared: Mapping[str, Any], text: str) -> str | None:
    """How the file's front matter differs from the entry's, or None when they say the same."""
    try:
        found = parse(split(text)[0])
    except FrontmatterError as exc:
        return str(exc)
    keys = sorted(set(declared) | set(found))
    differing = [key for key in keys if declared.get(key) != found.get(key) or (key in declared) != (key in found)]
    if differing:
        return "its front matter differs from its entry in " + ", ".join(repr(k) for k in differing[:5])
    return None


def widening(frontmatter: Mapping[str, Any]) -> list[str]:
    """The permissions a skill's front matter asks for, as `field: value` lines (never granted)."""
    asked = []
    for key in WIDENING_FIELDS:
        if key in frontmatter:
            value = frontmatter[key]
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            asked.append(f"{key}: {' '.join(str(shown).split())[:200]}")
    return asked


def body(text: str) -> str:
    """The instructions after the front matter (the whole text when it has none)."""
    try:
        return split(text)[1].strip("\n")
    except FrontmatterError:
        return text
