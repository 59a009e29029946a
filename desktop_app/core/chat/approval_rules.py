"""The user's "always allow" rules, each pinned to the definition the tool had when it was allowed.

A rule is kept by `(server, tool)` with the digest and the text of the tool's definition, in
`approvals.json` (mode 0600). A rule saved before rules were pinned has no digest: it is pinned
to the definition the tool has the first time it is used afterwards (`pin_unpinned`).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from desktop_app.core.atomic_file import atomic_write
from desktop_app.core.state_file import items_of, load_or_set_aside
from desktop_app.core.tool_changes import ToolChange
from desktop_app.core.tool_definition import ToolDefinition

log = logging.getLogger(__name__)

RULES_FILENAME: Final = "approvals.json"


@dataclass(frozen=True)
class Pin:
    """The definition a permission holds for; a `digest` of None is a rule not pinned yet."""

    digest: str | None
    definition: ToolDefinition | None = None
    """The allowed definition itself, to show what changed (None when only its digest is known)."""

    @classmethod
    def to(cls, definition: ToolDefinition) -> Pin:
        return cls(definition.digest, definition)

    def holds_for(self, definition: ToolDefinition) -> bool:
        return self.digest is None or self.digest == definition.digest

    def change_to(self, definition: ToolDefinition) -> ToolChange:
        return ToolChange.between(self.definition, definition)


class AlwaysAllowRules:
    """`(server, tool)` pairs the user always allows, each for one definition; kept in a JSON file, revocable."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._rules = self._load()

    def _load(self) -> dict[tuple[str, str], Pin]:
        # Unreadable rules allow nothing: every call is asked about again, which is safe.
        document = load_or_set_aside(self.path)
        rules: dict[tuple[str, str], Pin] = {}
        for item in items_of(document or {}, "always_allow"):
            if isinstance(item, dict) and isinstance(item.get("server"), str) and isinstance(item.get("tool"), str):
                pin = _pin_from(item)
                if pin is not None:
                    rules[(item["server"], item["tool"])] = pin
        return rules

    def allows(self, server: str, tool: str) -> bool:
        """There is a rule for this tool (it allows calls only while the tool matches its pin)."""
        return (server, tool) in self._rules

    def pin(self, server: str, tool: str) -> Pin | None:
        """The rule for this tool, or None when there is none."""
        return self._rules.get((server, tool))

    def rules(self) -> list[tuple[str, str]]:
        return sorted(self._rules)

    def add(self, server: str, tool: str, definition: ToolDefinition | None = None) -> None:
        """Always allow `tool` as `definition` says it is (without one: pinned at its next use)."""
        with self._lock:
            self._rules[(server, tool)] = Pin(None) if definition is None else Pin.to(definition)
            self._save()

    def pin_unpinned(self, server: str, tool: str, definition: ToolDefinition) -> None:
        """Pin a rule saved before rules were pinned to the tool's definition now, at its first use."""
        with self._lock:
            pin = self._rules.get((server, tool))
            if pin is not None and pin.digest is None:
                self._rules[(server, tool)] = Pin.to(definition)
                self._save()

    def revoke(self, server: str, tool: str) -> None:
        with self._lock:
            self._rules.pop((server, tool), None)
            self._save()

    def _save(self) -> None:
        items: list[dict[str, Any]] = []
        for (server, tool), pin in sorted(self._rules.items()):
            item: dict[str, Any] = {"server": server, "tool": tool}
            if pin.digest is not None:
                item["digest"] = pin.digest
            if pin.definition is not None:
                item["definition"] = pin.definition.to_json()
            items.append(item)
        atomic_write(self.path, json.dumps({"always_allow": items}, indent=2, ensure_ascii=False) + "\n")


def _pin_from(item: dict[str, Any]) -> Pin | None:
    """The pin a saved rule holds, or None when its digest is unreadable (then the rule is dropped)."""
    digest = item.get("digest")
    definition = ToolDefinition.from_json(item.get("definition"))
    if digest is None:
        return Pin(None) if definition is None else Pin.to(definition)
    if not isinstance(digest, str):
        log.warning("ignoring an approval rule with an unreadable digest for %s/%s", item["server"], item["tool"])
        return None
    # A definition that does not hash to the digest is not the one allowed: only the digest counts.
    return Pin(digest, definition if definition is not None and definition.digest == digest else None)
