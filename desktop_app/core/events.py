"""A small typed publish/subscribe bus: the core announces, the UI (or a CLI) listens.

Handlers run synchronously in the publisher's thread, in subscription order. A failing
handler is logged and skipped so one broken listener can never stop the host.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

if TYPE_CHECKING:
    from desktop_app.core.catalog import ServerCatalog
    from desktop_app.core.server_status import ServerStatus

log = logging.getLogger(__name__)

LogSource = Literal["stderr", "server", "host", "app"]


@dataclass(frozen=True)
class LogEntry:
    """One line in a server's log view: its stderr, a log notification, the host's note, or an app view's message."""

    time: float
    source: LogSource
    level: str
    text: str


@dataclass(frozen=True)
class ServerStateChanged:
    server: str
    status: ServerStatus


@dataclass(frozen=True)
class CatalogChanged:
    """A server's catalog was (re)listed; `catalog` is None when the server left the host."""

    server: str
    catalog: ServerCatalog | None


@dataclass(frozen=True)
class ServerRemoved:
    """A server left the host (removed, renamed or replaced): every view drops it, whatever its last state."""

    server: str


@dataclass(frozen=True)
class ResourceUpdated:
    server: str
    uri: str


@dataclass(frozen=True)
class LogLine:
    server: str
    entry: LogEntry


@dataclass(frozen=True)
class SamplingUsage:
    """A server's sampling request ran on the user's model and spent these tokens."""

    server: str
    model: str
    prompt_tokens: int
    completion_tokens: int


Event = ServerStateChanged | ServerRemoved | CatalogChanged | ResourceUpdated | LogLine | SamplingUsage
E = TypeVar("E", ServerStateChanged, ServerRemoved, CatalogChanged, ResourceUpdated, LogLine, SamplingUsage)
Unsubscribe = Callable[[], None]


class EventBus:
    """Routes each event to the handlers subscribed to its exact type."""

    def __init__(self) -> None:
        self._handlers: dict[type[Event], list[Callable[[Event], None]]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], None]) -> Unsubscribe:
        handlers = self._handlers.setdefault(kind, [])
        entry: Callable[[Event], None] = handler  # type: ignore[assignment]
        handlers.append(entry)

        def unsubscribe() -> None:
            if entry in handlers:
                handlers.remove(entry)

        return unsubscribe

    def publish(self, event: Event) -> None:
        for handler in tuple(self._handlers.get(type(event), ())):
            try:
                handler(event)
            except Exception:
                log.exception("Event handler %r failed on %s", handler, type(event).__name__)
