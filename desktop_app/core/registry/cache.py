"""The registry's last answers on disk, so the gallery opens offline with the last list.

One small JSON file per registry URL, holding the most recent first pages by search text and
when each was fetched; the gallery labels cached lists with that time. Losing the file loses
nothing but the offline view.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from desktop_app.core.atomic_file import atomic_write

MAX_PAGES_PER_REGISTRY: Final = 20


@dataclass(frozen=True)
class CachedPage:
    body: dict[str, Any]
    fetched_at: datetime


class RegistryCache:
    """Pages keyed by registry URL and query; writes are atomic, reads never raise."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _file(self, registry_url: str) -> Path:
        digest = hashlib.sha256(registry_url.encode()).hexdigest()[:16]
        return self.directory / f"registry-{digest}.json"

    def _read(self, registry_url: str) -> dict[str, Any]:
        try:
            document = json.loads(self._file(registry_url).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        pages = document.get("pages") if isinstance(document, dict) else None
        return pages if isinstance(pages, dict) and document.get("registry") == registry_url else {}

    def load(self, registry_url: str, query: str) -> CachedPage | None:
        entry = self._read(registry_url).get(query)
        if not isinstance(entry, dict) or not isinstance(entry.get("body"), dict):
            return None
        try:
            fetched_at = datetime.fromisoformat(str(entry.get("fetchedAt")))
        except ValueError:
            return None
        return CachedPage(entry["body"], fetched_at)

    def save(self, registry_url: str, query: str, body: dict[str, Any], fetched_at: datetime | None = None) -> None:
        """Remember `body` as the answer to `query`; the oldest pages beyond the limit are dropped."""
        pages = self._read(registry_url)
        pages.pop(query, None)
        pages[query] = {"fetchedAt": (fetched_at or datetime.now(UTC)).isoformat(), "body": body}
        while len(pages) > MAX_PAGES_PER_REGISTRY:
            pages.pop(next(iter(pages)))
        with contextlib.suppress(OSError):  # a read-only cache folder costs only the offline view
            document = {"registry": registry_url, "pages": pages}
            atomic_write(self._file(registry_url), json.dumps(document, ensure_ascii=False))
