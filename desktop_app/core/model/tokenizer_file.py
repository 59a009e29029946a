"""litellm's import without parsing the Anthropic tokenizer at import time.

`litellm.utils` reads its bundled Anthropic tokenizer (1.7 MB of JSON) when it is imported, parses
it, checks it and writes it back out as a string (`claude_json_str`); a tokenizer is built from that
string when a Claude model's tokens are first counted. Parsing and writing are two calls of about
30 ms each that never let go of the interpreter, and the app imports litellm while the user types
the first message: the window stalled that long, twice. The string is the file's own text in
another layout, so while litellm is imported the file reads as an empty document, and the file's
text takes the string's place once the import is done.

Where litellm (pinned exactly) reads the file some other way, nothing here is consulted and the
import is as slow as before; `tests/core/model/test_library_import.py` notices.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from importlib.machinery import ModuleSpec
from typing import IO, Any, Final

from desktop_app.core.model.import_hooks import Delegate, spec_elsewhere

PACKAGE: Final = "litellm.litellm_core_utils.tokenizers"
FILE: Final = "anthropic_tokenizer.json"
_EMPTY_DOCUMENT: Final = "null"


class _EmptyDocument:
    """The tokenizer file as read during litellm's import (which opens it, by either of its two ways)."""

    name = FILE

    def open(self, mode: str = "r", *_args: Any, **_kwargs: Any) -> IO[Any]:
        return io.BytesIO(_EMPTY_DOCUMENT.encode()) if "b" in mode else io.StringIO(_EMPTY_DOCUMENT)


class _Folder(Delegate):
    """The tokenizers folder, its Anthropic file empty while litellm's import runs."""

    def joinpath(self, *names: str) -> Any:
        return _EmptyDocument() if names == (FILE,) and _importing else self._inner.joinpath(*names)

    def __truediv__(self, name: str) -> Any:
        return self.joinpath(name)


class _Reader(Delegate):
    def files(self) -> _Folder:
        return _Folder(self._inner.files())


class _Loader(Delegate):
    def get_resource_reader(self, name: str) -> _Reader:
        return _Reader(self._inner.get_resource_reader(name))


class _Finder:
    """Finds the tokenizers package as every other finder would, its loader wrapped."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: object = None) -> ModuleSpec | None:
        spec = spec_elsewhere(self, name, path, target) if name == PACKAGE else None
        if spec is not None:
            spec.loader = _Loader(spec.loader)  # type: ignore[assignment]  # a loader by its methods
        return spec


_importing = False


@contextlib.contextmanager
def tokenizer_read_after() -> Iterator[None]:
    """Import litellm in the block: its Anthropic tokenizer's text is put in place after it."""
    global _importing
    finder = _Finder()
    _importing = True
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        _importing = False
    utils = sys.modules.get("litellm.utils")
    if utils is not None and getattr(utils, "claude_json_str", None) == _EMPTY_DOCUMENT:
        vars(utils)["claude_json_str"] = resources.files(PACKAGE).joinpath(FILE).read_text(encoding="utf-8")
