"""Token counts without the model library: tiktoken on litellm's bundled encodings, offline.

The context meter and the catalog's budget need counts long before anything is sent, and
importing litellm for them costs seconds and ~200 MB. litellm counts most models with tiktoken
anyway; this module makes the same choice of encoding and counts the same way (in 1,024-character
pieces), so the figures equal litellm's `token_counter`. The encoding files come from litellm's
package folder (the same files litellm uses), so nothing is downloaded. The encoding itself lives
in a process of its own (`token_process`), started at the first count and ended by
`release_encodings`: giving its ~50 MB back in the app's process paused the window.

Where litellm counts with a HuggingFace tokenizer of its own (bare `claude-…` names from Claude 4
on, DeepSeek, Cohere's Command R), the count is litellm's: those models load the library to count.
For a few dozen OpenAI names that litellm looks up in its price list (audio, realtime and
`…-latest` aliases on Azure) litellm may pick the other OpenAI encoding: counts then differ by
about 1%. Past 4 million characters litellm extrapolates from samples; this counts every piece.
"""

from __future__ import annotations

import atexit
import contextlib
import pickle
import re
import subprocess
import threading
import time
from typing import Final

from desktop_app.core.chat.token_process import CHUNK_CHARS
from desktop_app.core.pipe_messages import read_message, start_worker, write_message

TOKEN_WORKER_FLAG: Final = "--token-worker"
REAP_TIMEOUT_S: Final = 5.0
BUNDLED: Final = frozenset({"cl100k_base", "o200k_base"})
"""The encodings litellm ships; every tiktoken-counted model uses one of them."""
_DEEPSEEK: Final = re.compile(
    r"deepseek[-_.](?:chat[-_.])?v[34]|(?:^|/)deepseek-(?:chat|reasoner|flash)(?::free)?$", re.IGNORECASE
)
REQUEST_CHARS: Final = 64 * CHUNK_CHARS
"""A longer text is counted in requests of this many characters, each a whole number of the pieces the
process counts in (from each text's start), so their sum is the text's count: a short count waiting
meanwhile (a send's prompt, behind the context meter's count of a whole catalog) goes in between."""
GIVE_WAY_S: Final = 0.001
_NEWER_OPENAI: Final = re.compile(r"(?:gpt-(?:[5-9]|[1-9]\d+)|o[1-9]\d*)(?:[.-]|$)")


class TokenCountError(RuntimeError):
    """The tokenizer process could not count (it did not start, or stopped twice in a row)."""


def uses_library_tokenizer(model: str) -> bool:
    """True for models litellm counts with a HuggingFace tokenizer rather than tiktoken."""
    bare_claude = "/" not in model and model.startswith("claude") and "claude-3" not in model
    return bare_claude or bool(_DEEPSEEK.search(model)) or "command-r" in model


def encoding_name(model: str) -> str:
    """The tiktoken encoding litellm counts `model` with: its own for OpenAI names, else cl100k_base."""
    name = model.rsplit("/", 1)[-1].removeprefix("ft:")
    if "gpt-4o" in name:
        return "o200k_base"
    import tiktoken.model

    try:
        known = tiktoken.model.encoding_name_for_model(name)
    except KeyError:
        return "o200k_base" if _NEWER_OPENAI.match(name) else "cl100k_base"
    return known if known in BUNDLED else "cl100k_base"


class _Tokenizer:
    """The tokenizer process, started on first use; counts are answered one request at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue = threading.Lock()
        self._waiting = 0
        """Counts waiting for the process: a long count gives way to them between its requests."""
        self._process: subprocess.Popen[bytes] | None = None
        self._end_after_count = False
        self._ending: list[subprocess.Popen[bytes]] = []
        """Processes ended and not yet collected."""

    @property
    def running(self) -> bool:
        process = self._process
        return process is not None and process.poll() is None

    def counts(self, encoding: str, texts: list[str]) -> list[int]:
        """Tokens in each of `texts`; a process that stopped is started again once."""
        with self._queue:
            self._waiting += 1
        try:
            self._lock.acquire()
        finally:
            with self._queue:
                self._waiting -= 1
        try:
            return self._exchange(encoding, texts)
        finally:
            if self._end_after_count:
                self._end_after_count = False
                self._end()
            self._lock.release()

    def count_long(self, encoding: str, text: str) -> int:
        """Tokens in `text`, in requests of `REQUEST_CHARS`; between them, the counts waiting go first."""
        total = 0
        for start in range(0, len(text), REQUEST_CHARS):
            while self._waiting:
                time.sleep(GIVE_WAY_S)
            total += self.counts(encoding, [text[start : start + REQUEST_CHARS]])[0]
        return total

    def end(self, *, reap: bool = False) -> None:
        """End the process: now, or after the count that is running (never waits for one).

        `reap` (quitting): wait for a running count, and for the moment it takes the kernel to end
        the process, so no child is left behind; otherwise a thread collects it."""
        self._end_after_count = True
        if self._lock.acquire(timeout=REAP_TIMEOUT_S) if reap else self._lock.acquire(blocking=False):
            try:
                self._end_after_count = False
                self._end(reap=reap)
            finally:
                self._lock.release()

    def _exchange(self, encoding: str, texts: list[str]) -> list[int]:
        for _attempt in range(2):
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            try:
                write_message(process.stdin, {"encoding": encoding, "texts": texts})
                reply = read_message(process.stdout)
            except (OSError, ValueError, EOFError, pickle.UnpicklingError):
                reply = None
            if reply is not None:
                if "error" in reply:
                    raise TokenCountError(f"the tokenizer could not count: {reply['error']}")
                counts: list[int] = reply["counts"]
                return counts
            self._end()
        raise TokenCountError("the tokenizer process stopped while counting")

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        self._end()
        process = start_worker(TOKEN_WORKER_FLAG, "desktop_app.core.chat.token_process")
        self._process = process
        assert process.stdout is not None
        try:
            ready = read_message(process.stdout)
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):
            ready = None
        if not ready:
            self._end()
            raise TokenCountError("the tokenizer process did not start")
        return process

    def _end(self, *, reap: bool = False) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()  # nothing to save: the kernel takes its memory back at once
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            self._ending.append(process)
        if reap:
            for ending in list(self._ending):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    ending.wait(timeout=REAP_TIMEOUT_S)
        elif process is not None:
            threading.Thread(target=self._collect, args=(process,), name="tokenizer-exit", daemon=True).start()

    def _collect(self, process: subprocess.Popen[bytes]) -> None:
        """Wait for an ended process (a few ms) off the caller's thread."""
        process.wait()
        with contextlib.suppress(ValueError):
            self._ending.remove(process)


_tokenizer = _Tokenizer()
atexit.register(_tokenizer.end, reap=True)


def release_encodings(*, quitting: bool = False) -> None:
    """End the tokenizer process (its ~50 MB go with it); the next count starts it again (about half
    a second, in parallel), so call it only when no count is expected soon. Never waits for a count;
    `quitting` waits for the process to be gone."""
    _tokenizer.end(reap=quitting)


def preload(model: str) -> None:
    """Load what counting for `model` needs, so the next count (a send) does not wait for it."""
    if not uses_library_tokenizer(model):
        _tokenizer.counts(encoding_name(model), [])


def count_many(model: str, texts: list[str]) -> list[int]:
    """Tokens in each of `texts` for `model`, as `count_tokens` counts them, in one request to the tokenizer
    (a catalog's lines are many and short: one request each would cost more than their counting)."""
    if uses_library_tokenizer(model):
        return [count_tokens(model, text) for text in texts]
    if not any(texts):
        return [0] * len(texts)
    return _tokenizer.counts(encoding_name(model), texts)


def count_tokens(model: str, text: str) -> int:
    """Tokens in `text` for `model`, as litellm's `token_counter` counts them, offline."""
    if uses_library_tokenizer(model):
        from desktop_app.core.model.llm import litellm_module

        litellm_module()
        # `token_counter`'s own count: the app switches `token_counter` off for litellm's pricing.
        from litellm.litellm_core_utils.token_counter import _get_count_function

        return int(_get_count_function(model)(text))
    if not text:
        return 0
    return _tokenizer.count_long(encoding_name(model), text)
