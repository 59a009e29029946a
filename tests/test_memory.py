"""Process-wide memory settings: PySide's import hook no longer reads (and caches) every module's source."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_app.memory import release_free_heap

ROOT = Path(__file__).resolve().parents[1]


def test_no_module_opts_into_a_pyside_feature() -> None:
    # skip_pyside_source_scan is sound only while nothing here uses `from __feature__ import ...`.
    users = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "desktop_app").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == "__feature__"
    ]
    assert users == []


def test_modules_imported_after_the_setting_are_not_read_for_pyside(tmp_path: Path) -> None:
    for name in ("before", "after"):
        (tmp_path / f"{name}_module.py").write_text("VALUE = 1\n", encoding="utf-8")
    code = textwrap.dedent(
        f"""
        import linecache, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import PySide6.QtCore
        from desktop_app.memory import skip_pyside_source_scan
        import before_module
        assert skip_pyside_source_scan()
        import after_module
        cached = {{name.rsplit("/", 1)[-1] for name in linecache.cache}}
        print("before_module.py" in cached, "after_module.py" in cached)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    # PySide read the first module's source (and linecache keeps it); the second was not read.
    assert done.stdout.split() == ["True", "False"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_free_heap_goes_back_to_the_system() -> None:
    def resident_mb() -> float:
        fields = Path("/proc/self/status").read_text().split("VmRSS:")[1].split()
        return int(fields[0]) / 1024

    # ~100 MB of blocks over pymalloc's 512 bytes (so C's malloc holds them), with one allocated
    # after them: freed, they stay resident below it until the heap is trimmed.
    burst = [bytes(1000) + str(n).encode() for n in range(100_000)]
    keep = bytes(1000) + b"top"
    del burst
    before = resident_mb()
    release_free_heap()
    release_free_heap()  # a second call finds the C library without searching again
    assert resident_mb() < before - 50, "the freed blocks' pages stayed resident"
    assert keep
