"""No module under tests/ imports a `test_*.py` module: what tests share lives in a kit module beside them
(a fixture: in the folder's conftest.py), so a test module is only ever a set of tests, never a library
other modules lean on."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SKIPPED = (TESTS / "npm",)
"""Not Python's: the npm test peers' own tree."""

KNOWN_IMPORTS: dict[str, frozenset[str]] = {}
"""Test modules another module may still import (imported -> importers): none; an entry no longer used fails below."""


def module_name(path: Path) -> str:
    """`tests/core/sandbox/probes.py` -> `tests.core.sandbox.probes` (a package's `__init__.py`: the package)."""
    parts = path.relative_to(TESTS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def python_files() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("*.py")):
        if not any(path.is_relative_to(skipped) for skipped in SKIPPED):
            yield path


def imported_names(tree: ast.Module, importer: str, is_package: bool) -> Iterator[str]:
    """Every module name an import in `tree` may load, relative imports resolved against `importer`: for
    `from a.b import c`, both `a.b` and `a.b.c` (c may be a module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = importer.split(".")
                package = package if is_package else package[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, base] if base else package)
            yield base
            for alias in node.names:
                yield f"{base}.{alias.name}"


def imported_test_modules(source: str, importer: str, test_modules: set[str], is_package: bool = False) -> set[str]:
    """The test modules (of `test_modules`) that `source`, the text of module `importer`, imports."""
    found: set[str] = set()
    for name in imported_names(ast.parse(source), importer, is_package):
        parts = name.split(".")
        found |= {prefix for i in range(1, len(parts) + 1) if (prefix := ".".join(parts[:i])) in test_modules}
    return found


@functools.cache
def imports_of_test_modules() -> dict[str, set[str]]:
    """Each `test_*.py` module under tests/ that some module imports -> the modules importing it."""
    files = list(python_files())
    test_modules = {module_name(path) for path in files if path.name.startswith("test_")}
    found: dict[str, set[str]] = {}
    for path in files:
        importer = module_name(path)
        source = path.read_text(encoding="utf-8")
        for imported in imported_test_modules(source, importer, test_modules, path.name == "__init__.py"):
            found.setdefault(imported, set()).add(importer)
    return found


def test_no_module_imports_a_test_module() -> None:
    found = imports_of_test_modules()
    unexpected = {
        f"{importer} imports {imported}"
        for imported, importers in found.items()
        for importer in importers - KNOWN_IMPORTS.get(imported, frozenset())
    }
    assert not unexpected, (
        "move what these test modules share to a kit module beside them (a fixture: to the folder's conftest.py) "
        "and import it from there:\n" + "\n".join(sorted(unexpected))
    )


def test_every_known_import_of_a_test_module_is_still_there() -> None:
    found = imports_of_test_modules()
    gone = {
        f"{importer} imports {imported}"
        for imported, importers in KNOWN_IMPORTS.items()
        for importer in importers - found.get(imported, set())
    }
    assert not gone, "no longer imported: take these out of KNOWN_IMPORTS:\n" + "\n".join(sorted(gone))


def test_every_way_of_importing_a_test_module_is_seen() -> None:
    test_modules = {"tests.core.test_one", "tests.core.sub.test_two", "tests.ui.test_three"}
    forms = {
        "from tests.core.test_one import a": {"tests.core.test_one"},
        "import tests.core.sub.test_two": {"tests.core.sub.test_two"},
        "import tests.core.sub.test_two as two": {"tests.core.sub.test_two"},
        "from tests.core import test_one": {"tests.core.test_one"},
        "from tests.core.sub import test_two as two": {"tests.core.sub.test_two"},
        "from .test_one import a": {"tests.core.test_one"},
        "from . import test_one": {"tests.core.test_one"},
        "from .sub.test_two import b": {"tests.core.sub.test_two"},
        "from ..ui.test_three import c": {"tests.ui.test_three"},
        "def later() -> None:\n    from tests.ui.test_three import c": {"tests.ui.test_three"},
        "from tests.core.probes import test_one": set(),  # a name, not the module tests.core.test_one
        "from tests.core import probes": set(),
        "import tests.core.test_oneself": set(),
    }
    for source, expected in forms.items():
        assert imported_test_modules(source, "tests.core.kit", test_modules) == expected, source
    assert imported_test_modules("from .test_one import a", "tests.core", test_modules, is_package=True) == {
        "tests.core.test_one"
    }
