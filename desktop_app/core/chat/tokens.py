"""Token counts without the model library: tiktoken on litellm's bundled encodings, offline.

The context meter and the catalog's budget need counts long before anything is sent, and
importing litellm for them costs seconds and ~200 MB. litellm counts most models with tiktoken
anyway; this module makes the same choice of encoding and counts the same way (in 1,024-character
pieces), so the figures equal litellm's `token_counter`. The encoding files come from litellm's
package folder (the same files litellm uses), so nothing is downloaded.

Where litellm counts with a HuggingFace tokenizer of its own (bare `claude-…` names from Claude 4
on, DeepSeek, Cohere's Command R), the count is litellm's: those models load the library to count.
For a few dozen OpenAI names that litellm looks up in its price list (audio, realtime and
`…-latest` aliases on Azure) litellm may pick the other OpenAI encoding: counts then differ by
about 1%. Past 4 million characters litellm extrapolates from samples; this counts every piece.
"""

from __future__ import annotations

import importlib.util
import logging
import marshal
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from desktop_app.core.paths import cache_dir

if TYPE_CHECKING:
    from tiktoken import Encoding

CHUNK_CHARS: Final = 1024
"""litellm encodes text in pieces of this many characters (its `TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS`)."""
BUNDLED: Final = frozenset({"cl100k_base", "o200k_base"})
"""The encodings litellm ships; every tiktoken-counted model uses one of them."""
_DEEPSEEK: Final = re.compile(
    r"deepseek[-_.](?:chat[-_.])?v[34]|(?:^|/)deepseek-(?:chat|reasoner|flash)(?::free)?$", re.IGNORECASE
)
_NEWER_OPENAI: Final = re.compile(r"(?:gpt-(?:[5-9]|[1-9]\d+)|o[1-9]\d*)(?:[.-]|$)")
_lock = threading.Lock()
_encodings: dict[str, Encoding] = {}
log = logging.getLogger(__name__)


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


def _bundled_dir() -> str | None:
    """litellm's folder of tiktoken files, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(location) / "litellm_core_utils" / "tokenizers"
        if folder.is_dir():
            return str(folder)
    return None


def encoding(name: str) -> Encoding:
    """A tiktoken encoding read from litellm's bundled files (as litellm itself points tiktoken there).

    Built here rather than through `tiktoken.get_encoding`, whose registry would keep it for the
    life of the process: `release_encodings()` can then give its memory back. Built once however
    many threads ask at the same time (the catalog is counted from several).
    """
    with _lock:
        found = _encodings.get(name)
        if found is not None:
            return found
        if "TIKTOKEN_CACHE_DIR" not in os.environ:
            folder = os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR") or _bundled_dir()
            if folder:
                os.environ["TIKTOKEN_CACHE_DIR"] = folder
        import tiktoken

        found = tiktoken.Encoding(**_definition(name, tiktoken.__version__))
        # Its Python copy of the ranks serves only pickling (the Rust core keeps its own): ~26 MB
        # of a 200k-token encoding held for the life of the app.
        found._mergeable_ranks = {}
        _encodings[name] = found
        return found


def release_encodings() -> None:
    """Forget the loaded encodings (~50 MB for a 200k-token one); the next count loads them again
    (about half a second of CPU), so call it only when no count is expected soon."""
    with _lock:
        _encodings.clear()


def preload(model: str) -> None:
    """Load what counting for `model` needs, so the next count (a send) does not wait for it."""
    if not uses_library_tokenizer(model):
        encoding(encoding_name(model))


def count_tokens(model: str, text: str) -> int:
    """Tokens in `text` for `model`, as litellm's `token_counter` counts them, offline."""
    if uses_library_tokenizer(model):
        from desktop_app.core.model.llm import litellm_module

        litellm_module()
        # `token_counter`'s own count: the app switches `token_counter` off for litellm's pricing.
        from litellm.litellm_core_utils.token_counter import _get_count_function

        return int(_get_count_function(model)(text))
    encode = encoding(encoding_name(model)).encode_ordinary
    return sum(len(encode(text[start : start + CHUNK_CHARS])) for start in range(0, len(text), CHUNK_CHARS))


def _definition(name: str, version: str) -> dict[str, Any]:
    """The encoding's ranks, pattern and special tokens, kept beside the app's other caches.

    tiktoken reads its file of 200k base64 lines in Python (about 0.3 s of CPU, holding the
    interpreter); the same data read back with `marshal` takes about 0.08 s. The data is fixed
    for a tiktoken version (it pins each file's hash), so the version names the copy.
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
