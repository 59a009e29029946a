"""The user's answers to a registry entry's questions, as the literal values its entry is written with.

Defaults fill what was left empty, choices, numbers and booleans are checked, and a secret becomes a
slot (`entry_text`) whose value travels separately to the secret store. Folders given are noted, with
why, for the sandbox.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection

from desktop_app.core.publisher_document import Input, KeyValue
from desktop_app.core.registry.entry_text import SecretSlots
from desktop_app.core.registry.errors import PlanError
from desktop_app.core.registry.fields import Answers, Field, argument_key
from desktop_app.core.registry.model import Argument

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def secret_name(entry: str, key: str) -> str:
    """The secret-store name for one value of one installed server: WEATHER_API_KEY for `weather`'s
    `API_KEY`, and WEATHER_API_KEY too for its `WEATHER_API_KEY` (the entry's name is not doubled)."""
    entry_part = re.sub(r"[^A-Za-z0-9_.-]+", "_", entry).strip("_").upper()
    key_part = re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_").upper()
    if key_part.startswith(f"{entry_part}_"):
        return key_part
    return "_".join(p for p in (entry_part, key_part) if p) or "SECRET"


def check_answers(fields: list[Field], answers: Answers) -> None:
    """Refuse answers to questions the server does not ask (a typo in `--set` must not pass silently)."""
    known = {f.key for f in fields}
    unknown = sorted(set(answers) - known)
    if unknown:
        offered = ", ".join(f.key for f in fields) or "nothing"
        raise PlanError(f"unknown setting {unknown[0]} (this server takes: {offered})")


class AnswerValues:
    """Turns answers into raw values: defaults, checks, secrets swapped for slots (`entry_text`)."""

    def __init__(self, entry: str, answers: Answers, stored: Collection[str]) -> None:
        self._entry = entry
        self._answers = answers
        self._stored = stored
        self.secrets: dict[str, str] = {}
        self.slots = SecretSlots()
        self.folders: dict[str, str] = {}
        """Paths given (or left at their default) for a `filepath` value or naming a folder here, with why."""

    def asked(self, key: str, label: str, spec: Input) -> list[str]:
        given = [v for v in self._answers.get(key, ()) if v.strip()]
        why = f"you gave it as {label}"
        if not given and spec.default is not None:
            given, why = [spec.default], f"the default of {label}"
        name = secret_name(self._entry, key)
        if not given:
            if spec.is_secret and name in self._stored:
                return [self.slots.slot(name)]  # an update keeps the stored secret
            if spec.is_required:
                raise PlanError(f"{label} is required")
            return []
        values = [self._checked(label, spec, value) for value in given]
        if spec.is_secret:
            self.secrets[name] = values[0]
            return [self.slots.slot(name)]
        for value in values:
            if spec.format == "filepath" or (value.startswith(("/", "~")) and os.path.isdir(os.path.expanduser(value))):
                self.folders.setdefault(value, why)
        return values

    def fixed(self, spec: Input) -> str:
        """A publisher's `value`, with its `{variables}` filled (unknown ones stay, as the schema says)."""
        assert spec.value is not None

        def fill(match: re.Match[str]) -> str:
            variable = spec.variables.get(match.group(1))
            if variable is None:
                return match.group(0)
            values = self.asked(match.group(1), match.group(1), variable)
            return values[0] if values else match.group(0)

        return _PLACEHOLDER.sub(fill, spec.value)

    @staticmethod
    def _checked(label: str, spec: Input, value: str) -> str:
        if spec.choices and value not in spec.choices:
            raise PlanError(f"{label} must be one of: {', '.join(spec.choices)}")
        if spec.format == "number":
            try:
                float(value)
            except ValueError:
                raise PlanError(f"{label} must be a number") from None
        if spec.format == "boolean":
            lowered = value.strip().lower()
            if lowered not in ("true", "false"):
                raise PlanError(f"{label} must be true or false")
            return lowered
        return value


def argv_of(arguments: tuple[Argument, ...], values: AnswerValues) -> list[str]:
    """The command-line arguments `arguments` make with the user's values, in order."""
    argv: list[str] = []
    for argument in arguments:
        if argument.value is not None:
            given = [values.fixed(argument)]
        else:
            label = argument.name if argument.type == "named" and argument.name else argument_key(argument)
            given = values.asked(argument_key(argument), label or "argument", argument)
        for value in given:
            if argument.type == "positional":
                argv.append(value)
            elif argument.name and argument.name.endswith("="):
                argv.append(argument.name + value)
            elif argument.name:
                # The schema's prose says `--flag={value}` in one version and `--flag {value}` in another;
                # published servers use the separate form, which every argument parser accepts.
                argv.extend([argument.name, value] if value else [argument.name])
    return argv


def key_values(items: tuple[KeyValue, ...], values: AnswerValues) -> dict[str, str]:
    """Each environment variable or header of `items` that has a value, with it (the first if many)."""
    out: dict[str, str] = {}
    for item in items:
        given = [values.fixed(item)] if item.value is not None else values.asked(item.name, item.name, item)
        if given:
            out[item.name] = given[0]
    return out
