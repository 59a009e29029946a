"""Layering runs one way: core → bridge → resources_ui → ui. An import against the grain fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each layer, and the packages it may never import (its callers).
FORBIDDEN = {
    "desktop_app/core": ("PySide6", "qasync", "desktop_app.bridge", "desktop_app.ui", "resources_ui"),
    "desktop_app/cli": ("PySide6", "qasync", "desktop_app.bridge", "desktop_app.ui", "resources_ui"),
    "desktop_app/bridge.py": ("desktop_app.ui", "resources_ui"),
    "resources_ui": ("desktop_app.ui",),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _files(layer: str) -> list[Path]:
    path = ROOT / layer
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_import_against_the_layering(layer: str) -> None:
    files = _files(layer)
    assert files, f"{layer} has no Python files: the layering table is stale"
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in files
        for line, module in _imports(path)
        if any(module == banned or module.startswith(banned + ".") for banned in FORBIDDEN[layer])
    ]
    assert not bad, "\n".join(bad)
