"""The Skills extension's wire format (`io.modelcontextprotocol/skills`, SEP-2640), both protocol eras.

A server declaring the extension answers `skills/list` (paginated entries with `ttlMs`), `skills/get`
(one entry by the URI of its `SKILL.md`) and, when it declares `directoryRead`, the
`resources/directory/read` method; the files themselves come through ordinary `resources/read`.
The SDK has no helpers yet: these are request types of our own sent with `session.send_request`,
and the client's `advertise()`. Entries arrive as the server wrote them (plain JSON): what they
mean, and whether they may be loaded, is decided in `core/skills`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from mcp.client import ClientExtension, ClientSession, advertise
from mcp_types import PaginatedRequestParams, PaginatedResult, Request, RequestParams, Result, ServerCapabilities
from pydantic import ConfigDict, Field

EXTENSION_ID: Final = "io.modelcontextprotocol/skills"
LIST_METHOD: Final = "skills/list"
GET_METHOD: Final = "skills/get"
DIRECTORY_METHOD: Final = "resources/directory/read"
DYNAMIC: Final = "dynamic"
"""The `resources` of a skill whose content is generated: it has no digests to check."""
MAX_FILES: Final = 512
"""Files per skill, `SKILL.md` included, that every host must accept (and MCP Desk accepts no more)."""
MAX_TOTAL_BYTES: Final = 16 * 1024 * 1024
"""The sum of a skill's declared file sizes that every host must accept (and MCP Desk accepts no more)."""


_DIGEST: Final = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill as its entry declares it: where, its SHA-256 and its size in bytes."""

    uri: str
    digest: str
    size: int


@dataclass(frozen=True)
class SkillEntry:
    """A skill entry of the right shape: the URI of its `SKILL.md`, its front matter verbatim, its files.

    `files` is None for a "dynamic" skill (no digests). Whether the entry may be loaded (its files
    inside its folder, within the limits, its name matching its URI) is `core/skills`' to judge.
    """

    uri: str
    frontmatter: Mapping[str, Any]
    files: tuple[SkillFile, ...] | None

    @property
    def name(self) -> str:
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else ""

    @property
    def description(self) -> str:
        description = self.frontmatter.get("description")
        return description if isinstance(description, str) else ""


@dataclass(frozen=True)
class SkillListing:
    """What `skills/list` said, every page followed; entries of the wrong shape are left out and counted."""

    entries: tuple[SkillEntry, ...] = ()
    malformed: tuple[str, ...] = ()
    """Why each left-out entry was unusable (for the server's log)."""
    ttl_ms: int = 0
    """How long the listing may be taken as current (0: check again before relying on it)."""
    listed_at: float = 0.0
    """`time.monotonic()` when it was listed."""
    by_uri: Mapping[str, SkillEntry] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.by_uri:
            object.__setattr__(self, "by_uri", {entry.uri: entry for entry in reversed(self.entries)})

    def fresh(self, now: float) -> bool:
        return now - self.listed_at < self.ttl_ms / 1000


def parse_entry(raw: object) -> SkillEntry | str:
    """The entry `raw` describes, or why it cannot be one (a wrong type, a missing field, a bad digest)."""
    if not isinstance(raw, Mapping):
        return "an entry that is not an object"
    uri, frontmatter, resources = raw.get("uri"), raw.get("frontmatter"), raw.get("resources")
    if not isinstance(uri, str) or not uri:
        return "an entry without a uri"
    if not isinstance(frontmatter, Mapping):
        return f"{uri}: no frontmatter object"
    if not isinstance(frontmatter.get("name"), str) or not isinstance(frontmatter.get("description"), str):
        return f"{uri}: its frontmatter lacks a name or a description"
    if resources == DYNAMIC:
        return SkillEntry(uri, dict(frontmatter), None)
    if not isinstance(resources, list):
        return f'{uri}: resources is neither a list of files nor "dynamic"'
    files: list[SkillFile] = []
    for item in resources:
        file_uri = item.get("uri") if isinstance(item, Mapping) else None
        digest = item.get("digest") if isinstance(item, Mapping) else None
        size = item.get("size") if isinstance(item, Mapping) else None
        if not isinstance(file_uri, str) or not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            return f"{uri}: a file without a uri or a sha256:<64 hex> digest"
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            return f"{uri}: {file_uri} has no size in bytes"
        files.append(SkillFile(file_uri, digest, size))
    return SkillEntry(uri, dict(frontmatter), tuple(files))


def client_extension() -> ClientExtension:
    """What MCP Desk advertises under `capabilities.extensions`: it reads skills (no settings)."""
    return advertise(EXTENSION_ID, {})


def declared(capabilities: ServerCapabilities | None) -> dict[str, Any] | None:
    """The server's settings for the extension, or None when it does not declare it."""
    extensions = capabilities.extensions if capabilities is not None else None
    settings = (extensions or {}).get(EXTENSION_ID)
    return settings if isinstance(settings, dict) else None


def reads_directories(capabilities: ServerCapabilities | None) -> bool:
    """The server declared `directoryRead: true` (only then may `resources/directory/read` be sent)."""
    settings = declared(capabilities)
    return settings is not None and settings.get("directoryRead") is True


class _Loose(Result):
    """Results are kept as the server sent them: a malformed entry must not sink the whole page."""

    model_config = ConfigDict(extra="allow")


class ListSkillsResult(_Loose, PaginatedResult):
    skills: list[Any] = Field(default_factory=list)
    ttl_ms: Any = None
    cache_scope: Any = None


class GetSkillResult(_Loose):
    skill: Any = None
    ttl_ms: Any = None


class DirectoryResult(_Loose, PaginatedResult):
    resources: list[Any] = Field(default_factory=list)


class GetSkillParams(RequestParams):
    uri: str


class DirectoryParams(PaginatedRequestParams):
    uri: str


class ListSkillsRequest(Request[PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: PaginatedRequestParams | None = None


class GetSkillRequest(Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class DirectoryRequest(Request[DirectoryParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: DirectoryParams


async def list_page(session: ClientSession, cursor: str | None) -> ListSkillsResult:
    """One page of `skills/list`."""
    params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
    return await session.send_request(ListSkillsRequest(params=params), ListSkillsResult)


async def get_skill(session: ClientSession, uri: str) -> GetSkillResult:
    """`skills/get` for the skill whose `SKILL.md` is at `uri` (-32602 when the server serves no such skill)."""
    return await session.send_request(GetSkillRequest(params=GetSkillParams(uri=uri)), GetSkillResult)


async def directory_page(session: ClientSession, uri: str, cursor: str | None) -> DirectoryResult:
    """One page of `resources/directory/read` (send it only to a server that `reads_directories`)."""
    return await session.send_request(DirectoryRequest(params=DirectoryParams(uri=uri, cursor=cursor)), DirectoryResult)
