"""`read_resource` on a skill: the model's one way into a skill, routed to the skill-loading path.

A read reaches here only once it is routed to a server (`core/skills/addresses.py`) and concerns one of
that server's own skills: a skill never answers for an address another server serves. A read of a
skill's `SKILL.md` loads the skill (checked, asked, then handed over); a read of one of its other files
is served only once the chat loaded the skill; a read of anything else in a skill's folder is refused,
as the entry does not list it. Everything here is decided per host: one `SkillLoader` per `TurnHost`,
its permissions kept in `skills.json`.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass

from mcp.shared.exceptions import MCPError

from desktop_app.core.asks.question import QuestionGate, TooManyQuestions
from desktop_app.core.catalog import Catalog
from desktop_app.core.chat.turn_host import TurnHost
from desktop_app.core.content import ResourceContent, from_mcp
from desktop_app.core.extensions.skills import SkillEntry
from desktop_app.core.paths import data_dir
from desktop_app.core.server_errors import ServerRequestTimeout, ServerUnavailableError
from desktop_app.core.skills.addresses import also_offering, skills_of
from desktop_app.core.skills.consent import SKILL_RULES_FILENAME, SkillConsent, SkillRules
from desktop_app.core.skills.listing import fetch_entry
from desktop_app.core.skills.loading import SkillLoader, SkillRead

_loaders: weakref.WeakKeyDictionary[QuestionGate, SkillLoader] = weakref.WeakKeyDictionary()


def skill_loader(host: TurnHost) -> SkillLoader:
    """The host's skill loader: asks through the host's questions, keeps "always" in the user's `skills.json`.

    It is found by the host's question gate, which a turn's view of the host (one that records its
    requests) shares with the host itself: chats keep what they loaded from one turn to the next.
    """
    loader = _loaders.get(host.questions)
    if loader is None:
        loader = SkillLoader(SkillConsent(host.questions, SkillRules(data_dir() / SKILL_RULES_FILENAME)))
        _loaders[host.questions] = loader
    return loader


@dataclass(frozen=True)
class SkillOutput:
    """A skill read for the model: its text, its server, and the checked content (None when refused)."""

    text: str
    server: str
    content: ResourceContent | None = None
    is_error: bool = False


async def read_skill(host: TurnHost, catalog: Catalog, server: str, uri: str, chat: str | None = None) -> SkillOutput:
    """Load `server`'s skill `uri` names, or read one of its loaded skills' files (see the module's docstring)."""
    chat = host.asks.chat if chat is None else chat
    chat = chat or ""
    loader = skill_loader(host)
    found = [e for s, e in catalog.skills_with(uri) if s == server]
    if not found:
        entry = skills_of(catalog, server, uri)[0]
        text = (
            f"{uri} is in the folder of skill '{entry.name}' of server '{server}' but is not one of its files: "
            "the skill may have changed. Load it again with read_resource " + entry.uri + " (the user is asked)."
        )
        return SkillOutput(text, server, is_error=True)
    # A file several of its skills list (nested skills): the one this chat loaded, else the first.
    entry = next((e for e in found if loader.held(chat, server, e.uri) is not None), found[0])
    connection = host.connection(server)

    async def refresh(skill_uri: str) -> SkillEntry | str:
        client = connection.client
        return f"server '{server}' is not connected" if client is None else await fetch_entry(client.session, skill_uri)

    listing = catalog.servers[server].skills
    try:
        if entry.uri == uri:
            trusted = host.trust(server).trusted
            stale = listing is None or not listing.fresh(time.monotonic())
            read = await loader.load(
                chat,
                server,
                entry,
                trusted=trusted,
                stale=stale,
                read=connection.read_resource,
                refresh=refresh,
                others=also_offering(catalog, server, entry.uri),
            )
        else:
            read = await loader.read_file(chat, server, entry, uri, connection.read_resource)
    except MCPError as exc:
        return SkillOutput(f"Error reading '{uri}' from server '{server}': {exc.message}", server, is_error=True)
    except (ServerUnavailableError, ServerRequestTimeout, TooManyQuestions) as exc:
        return SkillOutput(f"Error reading '{uri}': {exc}", server, is_error=True)
    return _output(host, server, read)


def _output(host: TurnHost, server: str, read: SkillRead) -> SkillOutput:
    if read.log is not None:
        host.connection(server).asks.context.note("warning", read.log)
    if read.is_error or read.content is None:
        return SkillOutput(read.text, server, is_error=True)
    return SkillOutput(read.text, server, from_mcp(read.content))
