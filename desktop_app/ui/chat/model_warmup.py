"""Gets the model library ready off the user's path, and gives the tokenizer back while nobody writes.

LiteLLM costs seconds and ~200 MB to import, so it loads when the user starts typing, not at start-up;
the tokenizer it counts with (~50 MB, in a process of its own: `core/chat/token_process.py`) is held
while a message is written or sent and ended once the app has gone quiet: the catalog settled, or an
answer read with nothing typed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from desktop_app.bridge import CoreBridge
from desktop_app.core.chat.approval import preload_validation
from desktop_app.core.chat.tokens import preload as preload_tokenizer
from desktop_app.core.chat.tokens import release_encodings
from desktop_app.core.model.llm import load_litellm, preload_openai_sdk, ready_litellm
from desktop_app.core.model.settings import ModelSettings
from desktop_app.memory import release_free_heap
from desktop_app.ui.conversation.markdown_html import markdown_parser, preload_highlighting
from desktop_app.ui.conversation.turn_status import LOADING_LIBRARY, WAITING_FOR_PROVIDER, TurnStatus

log = logging.getLogger(__name__)

SETTLED_MS = 2000
"""The tokenizer is given back once the catalog has not been counted for this long (nothing typed)."""
IDLE_MS = 20_000
"""…and once this long has passed after an answer with nothing typed: a question typed soon after
the answer finds it ready instead of waiting half a second for its process to start again."""


def _loop_running() -> bool:
    """False once the app is quitting: a timer that fires then starts no work."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class ModelWarmup(QObject):
    """The model library's loading and the tokenizer's hold, for one chat controller."""

    def __init__(self, bridge: CoreBridge, model: Callable[[], ModelSettings | None], status: TurnStatus) -> None:
        super().__init__()
        self._bridge = bridge
        self._model = model
        self._status = status
        self._warming = False
        self._ready = False
        """The model library is loaded: a turn waits for the provider, not for it."""
        self.held = False
        """Whether the user is writing or sending a message (the tokenizer is kept loaded meanwhile)."""
        self.quiet_timer = QTimer(self, singleShot=True)
        """Fires once the app has gone quiet with nothing typed: the catalog settled, or an answer read."""
        self.idle_ms = IDLE_MS
        self.quiet_timer.timeout.connect(self._release_tokenizer)
        self.quiet_timer.timeout.connect(self._preload_sdk)

    def start(self) -> None:
        """Load litellm and the highlighters in the background, once: when the user starts typing;
        and the tokenizer, which is given back after each answer, whenever typing starts again.

        Not at start-up: the library costs ~200 MB and seconds of a worker thread that competes
        with the window for the interpreter (every Qt callback into Python waits for it). The
        user types for a few seconds before sending, which is time enough on most machines;
        a send before that waits for the rest of the import.
        """
        model = self._model()
        if not self._warming:
            self._warming = True
            self.held = True
            begin_loading()
            self._bridge.spawn(self._warm(), "Loading the model library")
        elif not self.held and model is not None:
            self.held = True  # released after the last turn: the next send counts again
            self._bridge.spawn(asyncio.to_thread(preload_tokenizer, model.model), "Loading the tokenizer")

    @property
    def requested(self) -> bool:
        """Whether loading the model library has begun (the user typed or sent something)."""
        return self._warming

    @property
    def model_wait(self) -> str:
        """What a call to the model waits for now: the model library, or the provider."""
        return WAITING_FOR_PROVIDER if self._ready else LOADING_LIBRARY

    def settled(self) -> None:
        """A count of the catalog ended: with nothing typed, the tokenizer goes once servers stop connecting."""
        if not self.held:
            self.quiet_timer.start(SETTLED_MS)

    def answered(self) -> None:
        """A turn ended: the answer is read; a message typed soon after keeps the tokenizer."""
        self.held = False
        self.quiet_timer.start(self.idle_ms)

    def stop(self) -> None:
        """Quitting: nothing is given back once the event loop has gone (the session ends the tokenizer)."""
        self.quiet_timer.stop()

    def _preload_sdk(self) -> None:
        """Once the catalog has settled with nothing typed: part of the model library, whose
        whole import (at the first key) takes about as long as typing a short question."""
        if not self._warming and self._model() is not None and _loop_running():
            self._bridge.spawn(preload_openai_sdk(), "Preparing the model library")

    async def _warm(self) -> None:
        model = self._model()
        # The first send counts the prompt's tokens: the tokenizer starts now, in its own process on
        # another core, while the library is imported here (in turn, they made a send wait 0.6 s more).
        counting = asyncio.ensure_future(asyncio.to_thread(preload_tokenizer, model.model)) if model else None
        # Alongside the library (its objects are frozen: full collections skip them, core/long_lived.py),
        # what the first turn meets before the highlighters: done long before the library, so the
        # first approval and answer never wait on an import another thread holds.
        await asyncio.gather(load_litellm(), asyncio.to_thread(_preload_turn_parts))
        if counting is not None:
            await counting
        self._ready = True
        if self._status.waiting == LOADING_LIBRARY:
            self._status.wait_for(WAITING_FOR_PROVIDER)
        await asyncio.to_thread(preload_highlighting)
        await asyncio.to_thread(release_free_heap)  # the import's garbage, freed in a worker's heap

    def _release_tokenizer(self) -> None:
        """End the tokenizer's process while the user is not writing a message: nothing counts then
        unless the catalog changes. Typing starts it again (half a second, in parallel); a count still
        running (the naive dump reads every resource first) ends it when it is done."""
        if not self.held:
            release_encodings()


def begin_loading() -> None:
    """Begin the model library's import on this very call, in a thread of its own.

    Started from the warm-up's task, it would begin on the event loop's next turn: after the send, when a
    message is pasted or typed and sent in one burst (a message sent the moment the window is on screen
    waited for it). `load_litellm` then waits for this import rather than starting another."""

    def load() -> None:
        try:
            ready_litellm()
        except Exception as exc:  # the warm-up's own call reports it (it imports again)
            log.info("the model library did not load in the background: %s", exc)

    threading.Thread(target=load, name="model-library-early", daemon=True).start()


def _preload_turn_parts() -> None:
    """What a first turn meets before the highlighters: the approval's schema check, the answer's parser."""
    preload_validation()
    markdown_parser()
