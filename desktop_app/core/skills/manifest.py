"""Whether a skill entry may be loaded, what a permission for it is pinned to, and checking its files.

An entry is the server's own account of a skill, so each claim is checked before anything is read:
its `SKILL.md` URI names the skill, every file lies inside the skill's folder, the whole stays
within the extension's limits (512 files, 16 MiB), and the files have digests (a "dynamic" skill
has none, and is not loaded). A file read later must have exactly the declared size and digest.
Digests only prove that entry and content agree, not that either is honest: they are no reason
to trust a skill, only a way to pin the user's permission to the files they were shown.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from desktop_app.core.content import human_size
from desktop_app.core.extensions.skills import MAX_FILES, MAX_TOTAL_BYTES, SkillEntry, SkillFile

SKILL_FILE: Final = "SKILL.md"


def skill_root(uri: str) -> str | None:
    """The skill's folder (`skill://a/b` for `skill://a/b/SKILL.md`), or None when `uri` names no `SKILL.md`."""
    if not uri.endswith("/" + SKILL_FILE):
        return None
    root = uri[: -len(SKILL_FILE) - 1]
    return root if "://" in root and not root.endswith("://") else None


def _inside(root: str, uri: str) -> bool:
    """`uri` is a file in `root`'s folder: no query, fragment, empty, `.` or `..` segment on the way."""
    if not uri.startswith(root + "/"):
        return False
    rest = uri[len(root) + 1 :]
    parts = urlsplit(uri)
    return (
        bool(rest) and not parts.query and not parts.fragment and all(s not in ("", ".", "..") for s in rest.split("/"))
    )


def problem(entry: SkillEntry) -> str | None:
    """Why `entry` must not be loaded, in words for the model and the user; None when it may be."""
    root = skill_root(entry.uri)
    if root is None:
        return f"its URI {entry.uri} does not name a {SKILL_FILE}"
    if root.rsplit("/", 1)[-1].rsplit("://", 1)[-1] != entry.name:
        return f"its name '{entry.name}' is not the last part of its URI {entry.uri}"
    if entry.files is None:
        return "its content is generated on demand ('dynamic'), so there are no digests to check it against"
    if len(entry.files) > MAX_FILES:
        return f"it declares {len(entry.files):,} files, more than the {MAX_FILES} a skill may have"
    total = sum(f.size for f in entry.files)
    if total > MAX_TOTAL_BYTES:
        return f"its files add up to {human_size(total)}, more than the {human_size(MAX_TOTAL_BYTES)} a skill may have"
    seen: set[str] = set()
    for file in entry.files:
        if file.uri in seen:
            return f"it lists {file.uri} twice"
        seen.add(file.uri)
        if file.uri != entry.uri and not _inside(root, file.uri):
            return f"it lists {file.uri}, which is outside its folder {root}/"
    if entry.uri not in seen:
        return f"its own {SKILL_FILE} is not among its files"
    return None


def in_folder_of(entry: SkillEntry, uri: str) -> bool:
    """`uri` lies in `entry`'s folder (listed or not)."""
    root = skill_root(entry.uri)
    return root is not None and _inside(root, uri)


def file_of(entry: SkillEntry, uri: str) -> SkillFile | None:
    return next((f for f in entry.files or () if f.uri == uri), None)


@dataclass(frozen=True)
class SkillPin:
    """What a permission for a skill holds for: the set of its files' `{uri, digest}`, and its digest."""

    digest: str
    files: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, entry: SkillEntry) -> SkillPin:
        files = tuple(sorted({(f.uri, f.digest) for f in entry.files or ()}))
        text = "\n".join(f"{uri} {digest}" for uri, digest in files)
        return cls("sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest(), files)

    def changes_to(self, other: SkillPin) -> list[str]:
        """What differs from `self` in `other`, one line per file: added, removed or changed."""
        mine, theirs = dict(self.files), dict(other.files)
        lines = [f"new file {uri}" for uri in theirs if uri not in mine]
        lines += [f"removed {uri}" for uri in mine if uri not in theirs]
        lines += [f"changed {uri}" for uri in theirs if uri in mine and mine[uri] != theirs[uri]]
        return lines


def mismatch(file: SkillFile, data: bytes) -> str | None:
    """Why `data` is not the file the entry declared (its size, then its digest), or None when it is."""
    if len(data) != file.size:
        return f"{file.uri} is {len(data):,} bytes, not the {file.size:,} its server declared"
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != file.digest:
        return f"{file.uri} does not match the digest its server declared ({digest} instead of {file.digest})"
    return None
