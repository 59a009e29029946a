"""State files the app reads at start (settings, caches, rules, the history): damage never stops it.

A file that is garbage, the wrong JSON type, a folder in its place or unreadable becomes a
`DamagedStateFile` with a sentence for the user; the caller starts from defaults and says so, and
nothing is deleted: a file that must make room for a fresh one is renamed aside (`set_aside`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class DamagedStateFile(Exception):
    """A state file that exists but cannot be used; `str()` says which and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} could not be read ({reason})")
        self.path = path
        self.reason = reason


def read_state_text(path: Path) -> str | None:
    """The text of `path`, None when there is none; `DamagedStateFile` when it cannot be read as text."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise DamagedStateFile(path, "a folder is in its place") from None
    except UnicodeDecodeError:
        raise DamagedStateFile(path, "it is not text") from None
    except OSError as exc:
        raise DamagedStateFile(path, exc.strerror or str(exc)) from None


def load_state_json(path: Path, kind: type[Any] = dict) -> Any:
    """The JSON document of `path` (None when there is none), which must be a `kind`; else `DamagedStateFile`."""
    text = read_state_text(path)
    if text is None:
        return None
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise DamagedStateFile(path, f"it is not valid JSON: {exc}") from None
    if not isinstance(document, kind):
        expected = "a JSON object" if kind is dict else "a JSON list" if kind is list else kind.__name__
        raise DamagedStateFile(path, f"it does not hold {expected}")
    return document


def set_aside(path: Path, companions: Iterable[str] = ()) -> Path:
    """Rename `path` to `<name>.corrupt-<date>` (and each `path + suffix` in `companions` the same way),
    so a fresh one can take its place and the old one is kept; returns the new name. Raises `OSError`."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 1
    while aside.exists() or any(Path(f"{aside}{suffix}").exists() for suffix in companions):
        number += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{number}")
    path.rename(aside)
    for suffix in companions:
        companion = Path(f"{path}{suffix}")
        if companion.exists():
            companion.rename(f"{aside}{suffix}")
    return aside


def load_or_set_aside(path: Path, kind: type[Any] = dict) -> Any:
    """The JSON document of `path` (a `kind`), or None: when there is none, and when it is damaged. A damaged
    file is renamed aside and logged, so the next save cannot overwrite what it held."""
    try:
        return load_state_json(path, kind)
    except DamagedStateFile as exc:
        try:
            aside = set_aside(path)
        except OSError as failed:
            log.warning("%s; starting without it (it could not be renamed aside: %s)", exc, failed)
        else:
            log.warning("%s; starting without it, the old file is kept as %s", exc, aside)
        return None


def items_of(document: dict[str, Any], key: str) -> list[Any]:
    """`document[key]` when it is a list, else an empty one (a hand edit or a damaged file)."""
    value = document.get(key)
    return value if isinstance(value, list) else []
