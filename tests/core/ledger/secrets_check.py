"""What every test that writes a trace or an export checks last: none of the secrets it used is in them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote


def assert_clean(paths: Iterable[Path], secrets: Iterable[str]) -> None:
    """Each file exists, and no secret appears in it (raw, URL-encoded, or JSON-escaped)."""
    for path in paths:
        written = path.read_text(encoding="utf-8")
        assert written, f"{path} is empty"
        for secret in secrets:
            for form in {secret, quote(secret, safe=""), secret.replace("/", "\\/")}:
                assert form not in written, f"a secret ({secret[:4]}…) is in {path.name}"
