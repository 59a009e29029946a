"""A domain's catalog and cards kept on disk as HTTP says they may be: fresh for `max-age`, then asked
again with their `ETag` (a `304 Not Modified` costs no download).

One small JSON file per URL. `no-store` is never written; `no-cache` (or no `max-age`) is revalidated
on every look; a `max-age` is held to a day at most, so a card cannot pin itself for years. Losing
the folder loses nothing but a few requests.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from desktop_app.core.atomic_file import atomic_write

MAX_AGE_LIMIT_S: Final = 24 * 3600
_MAX_AGE: Final = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d+)\"?\s*(?:,|$)", re.IGNORECASE)

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class Freshness:
    """What a response's `Cache-Control` allows: store it at all, and for how long without asking."""

    store: bool
    max_age_s: int


def freshness(cache_control: str | None) -> Freshness:
    """`Cache-Control` read for a private cache: `no-store`, `no-cache`, `max-age` (held to a day)."""
    value = (cache_control or "").lower()
    directives = {part.strip().partition("=")[0] for part in value.split(",")}
    if "no-store" in directives:
        return Freshness(False, 0)
    match = _MAX_AGE.search(value)
    if "no-cache" in directives or match is None:
        return Freshness(True, 0)
    return Freshness(True, min(int(match.group(1)), MAX_AGE_LIMIT_S))


@dataclass(frozen=True)
class CachedDocument:
    body: bytes
    etag: str | None
    fetched_at: datetime
    max_age_s: int

    def fresh(self, now: datetime) -> bool:
        return now < self.fetched_at + timedelta(seconds=self.max_age_s)


class DocumentCache:
    """Documents by URL; reads never raise, a folder that cannot be written costs only requests."""

    def __init__(self, directory: Path, clock: Clock | None = None) -> None:
        self.directory = directory
        self.now: Clock = clock or (lambda: datetime.now(UTC))

    def _file(self, url: str) -> Path:
        return self.directory / f"{hashlib.sha256(url.encode()).hexdigest()[:24]}.json"

    def load(self, url: str) -> CachedDocument | None:
        try:
            document = json.loads(self._file(url).read_text(encoding="utf-8"))
            if document["url"] != url:
                return None
            return CachedDocument(
                document["body"].encode("utf-8"),
                document.get("etag"),
                datetime.fromisoformat(document["fetchedAt"]),
                int(document["maxAge"]),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def save(self, url: str, body: bytes, etag: str | None, cache_control: str | None) -> None:
        """Remember `body` as `url`'s answer now, unless `no-store`; bodies that are not UTF-8 are not kept."""
        rule = freshness(cache_control)
        if not rule.store:
            self.forget(url)
            return
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return
        document = {
            "url": url,
            "etag": etag,
            "fetchedAt": self.now().isoformat(),
            "maxAge": rule.max_age_s,
            "body": text,
        }
        with contextlib.suppress(OSError):
            atomic_write(self._file(url), json.dumps(document, ensure_ascii=False))

    def revalidated(self, url: str, cached: CachedDocument, cache_control: str | None) -> None:
        """A `304`: the stored body holds for another `max-age` from now."""
        self.save(url, cached.body, cached.etag, cache_control)

    def forget(self, url: str) -> None:
        with contextlib.suppress(OSError):
            self._file(url).unlink(missing_ok=True)
