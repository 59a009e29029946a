"""The tokenizer process: token counts for the app, one request at a time, over stdin and stdout.

A tiktoken encoding is about 600,000 native allocations (~50 MB for a 200k-token one). Giving it
back inside the app held the interpreter, and so the window, for 50–80 ms each time; keeping it
cost the memory for the life of the app. Here it lives in a process of its own that the app ends
when nothing counts (`tokens.release_encodings`): the kernel takes the memory back at once, and
the window never pauses for it. Messages travel as `pipe_messages` frames.
"""

from __future__ import annotations

import importlib.util
import logging
import marshal
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from desktop_app.core.paths import cache_dir
from desktop_app.core.pipe_messages import read_message, write_message

if TYPE_CHECKING:
    from tiktoken import Encoding

CHUNK_CHARS: Final = 1024
"""litellm encodes text in pieces of this many characters (its `TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS`)."""
log = logging.getLogger(__name__)


def load_encoding(name: str) -> Encoding:
    """A tiktoken encoding read from litellm's bundled files (as litellm itself points tiktoken there),
    built here rather than through `tiktoken.get_encoding`, whose registry would keep a second copy."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR") or _bundled_dir()
        if folder:
            os.environ["TIKTOKEN_CACHE_DIR"] = folder
    import tiktoken

    found = tiktoken.Encoding(**_definition(name, tiktoken.__version__))
    # Its Python copy of the ranks serves only pickling (the Rust core keeps its own): ~26 MB.
    found._mergeable_ranks = {}
    return found


def count(encoding: Encoding, text: str) -> int:
    """Tokens in `text`, counted in pieces as litellm's `token_counter` counts them."""
    encode = encoding.encode_ordinary
    return sum(len(encode(text[start : start + CHUNK_CHARS])) for start in range(0, len(text), CHUNK_CHARS))


def _bundled_dir() -> str | None:
    """litellm's folder of tiktoken files, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(location) / "litellm_core_utils" / "tokenizers"
        if folder.is_dir():
            return str(folder)
    return None


def _definition(name: str, version: str) -> dict[str, Any]:
    """The encoding's ranks, pattern and special tokens, kept beside the app's other caches.

    tiktoken reads its file of 200k base64 lines in Python (about 0.3 s of CPU); the same data
    read back with `marshal` takes about 0.08 s. The data is fixed for a tiktoken version (it pins
    each file's hash), so the version names the copy.
    """
    path = cache_dir() / "tokenizers" / f"{name}-tiktoken-{version}.marshal"
    try:
        found = marshal.loads(path.read_bytes())
        if isinstance(found, dict) and found.get("name") == name:
            return found
    except (OSError, EOFError, ValueError, TypeError) as exc:
        if not isinstance(exc, FileNotFoundError):
            log.info("the tokenizer cache %s is unreadable, reading the encoding again: %s", path, exc)
    from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS  # type: ignore[import-untyped]

    definition: dict[str, Any] = ENCODING_CONSTRUCTORS[name]()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(marshal.dumps(definition))
        partial.replace(path)
    except OSError as exc:  # a read-only or full disk: counting works, only slower next time
        log.info("cannot keep the tokenizer in %s: %s", path, exc)
    return definition


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """Answer `{"encoding": name, "texts": [...]}` with `{"counts": [...]}` until the app closes the pipe;
    a failing request answers with its error."""
    encodings: dict[str, Encoding] = {}
    write_message(replies, {"ready": True})
    while (request := read_message(requests)) is not None:
        try:
            name = request["encoding"]
            encoding = encodings.get(name) or encodings.setdefault(name, load_encoding(name))
            reply: dict[str, Any] = {"counts": [count(encoding, text) for text in request["texts"]]}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        write_message(replies, reply)


def main(argv: list[str] | None = None) -> int:
    """The process's entry point (`mcp-desk --token-worker` in a frozen build); it takes no arguments.

    It ends when the app closes its pipe, however the app ends (no count takes long). Not with
    `die_with_the_app`: the kernel ties that to the thread that started the process, and counts start
    it from pool threads, which end long before the app (the process was killed and left a zombie)."""
    replies, sys.stdout = sys.stdout.buffer, sys.stderr  # the replies own stdout
    serve(sys.stdin.buffer, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
