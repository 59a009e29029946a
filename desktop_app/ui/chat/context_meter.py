"""What the catalog costs the model, for the status bar: the system prompt's tokens, the model's context
window they fill, and what a host pasting every resource would spend instead. Counted off the event loop
and never while a turn builds its request; the tokenizer it uses is held and given back by the model
warm-up."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.context import naive_dump_tokens
from desktop_app.core.chat.engine import ChatEngine
from desktop_app.core.chat.tokens import count_tokens
from desktop_app.core.model.context_window import context_window
from desktop_app.ui.chat.model_warmup import ModelWarmup

NAIVE_DUMP_LIMIT = 300
"""Above this many catalog entries the comparison would read too much just to show a number."""
DumpKey = tuple[str, frozenset[tuple[str, str]]]
"""The model counted with, and the (server, URI) of every resource read."""


class ContextMeter(QObject):
    """Counts the catalog for one chat controller, whose turns it keeps out of the way of."""

    context_changed = Signal(object)  # SystemPrompt figures
    dump_measured = Signal(int)  # tokens a paste-everything host would spend on the same resources
    window_known = Signal(str, object)  # model, its context window in tokens (None: not known)

    def __init__(self, bridge: CoreBridge, engine: Callable[[], ChatEngine | None], warmup: ModelWarmup) -> None:
        super().__init__()
        self._bridge = bridge
        self._engine = engine
        self._warmup = warmup
        self.dump: tuple[DumpKey, int] | None = None
        """The last naive dump's figure and what it read: reused while the resources and model stay."""
        self._turn_running = False
        self._put_off = False
        self._stopped = False

    @property
    def put_off(self) -> bool:
        """Whether a count waits for the running turn to end."""
        return self._put_off

    def refresh(self) -> None:
        """Recompute the catalog's token cost for the status bar (off the event loop)."""
        engine = self._engine()
        if engine is not None and not self._stopped:
            self._bridge.spawn(self._measure(engine), "Measuring the context")

    def stop(self) -> None:
        """Quitting: servers stopping change the catalog, and nobody is left to read its count."""
        self._stopped = True

    def turn_started(self) -> None:
        """A turn builds its requests from now until its events end: counts wait for it."""
        self._turn_running = True

    def turn_ended(self) -> None:
        """The turn's events ended: a count put off meanwhile runs now."""
        self._turn_running = False
        if self._put_off:
            self._put_off = False
            self.refresh()

    async def _measure(self, engine: ChatEngine) -> None:
        if self._turn_running:
            # A turn's request is being built: the meter's count would compete with it for the
            # interpreter (a tenth of a second at 10,000 resources). It runs once the turn ends.
            self._put_off = True
            return
        gc.freeze()  # a new catalog is long-lived: keep full collections from walking it again
        try:
            await self.count(engine)
        finally:
            self._warmup.settled()  # servers connecting one by one: once they settle

    async def count(self, engine: ChatEngine) -> None:
        """Count the catalog `engine` would send now, and (while small) the naive dump of its resources."""
        catalog = self._bridge.host.catalog
        prompt = await engine.system_prompt(catalog=catalog)
        if prompt.full_catalog_tokens is None:  # the meter shows it: counted here, off a turn's way
            prompt = dataclasses.replace(prompt, full_catalog_tokens=await engine.full_catalog_tokens(catalog))
        model = engine.settings.model
        self.window_known.emit(model, await asyncio.to_thread(context_window, model))  # a file read, once a model
        self.context_changed.emit(prompt)
        # Only the catalog just counted is read, and only while small: a server that listed
        # thousands of resources meanwhile has a newer count coming, which skips the reading.
        if prompt.total > NAIVE_DUMP_LIMIT or catalog is not self._bridge.host.catalog:
            return
        # Reading every resource again is only worth it when the set of resources (or the tokenizer) changed.
        key = (model, frozenset((server, r.uri) for server, r in catalog.resources()))
        if self.dump is None or self.dump[0] != key:
            tokens = await naive_dump_tokens(self._bridge.host, catalog, lambda t: count_tokens(model, t))
            self.dump = (key, tokens)
        self.dump_measured.emit(self.dump[1])
