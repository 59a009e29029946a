"""UTF-8 for a stdio server's stdout that never fails: invalid bytes become U+FFFD and are reported.

The SDK's stdio reader decodes strictly by default; one stray byte then ends its reader while
the connection still looks alive. It accepts any codec name, so MCP Desk registers this one.
The connection learns which bytes were replaced through `reporting_bad_bytes`, which sets the
callback for decoders created in the tasks started under it (the transport's reader task).
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from typing_extensions import Buffer

log = logging.getLogger(__name__)

CODEC_NAME: Final = "mcp_desk_lenient_utf8"
BadBytesReport = Callable[[bytes], None]

_report: ContextVar[BadBytesReport | None] = ContextVar("lenient_utf8_report", default=None)
# `surrogateescape` turns each undecodable byte 0xXY into the lone surrogate U+DCXY, which
# valid UTF-8 can never produce: finding them recovers exactly the bytes that were bad.
_ESCAPED: Final = re.compile("[\udc80-\udcff]+")


class _Decoder(codecs.IncrementalDecoder):
    def __init__(self, errors: str = "strict") -> None:
        super().__init__(errors)
        self._inner = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._report = _report.get()

    def decode(self, input: Buffer, final: bool = False) -> str:
        text: str = self._inner.decode(input, final)
        if not _ESCAPED.search(text):
            return text
        if self._report is not None:
            bad = bytes(ord(char) - 0xDC00 for run in _ESCAPED.findall(text) for char in run)
            try:
                self._report(bad)
            except Exception:  # a broken listener must not end the reader this codec protects
                log.exception("reporting invalid UTF-8 failed")
        return _ESCAPED.sub("\ufffd", text)

    def reset(self) -> None:
        self._inner.reset()

    def getstate(self) -> tuple[bytes, int]:
        state: tuple[bytes, int] = self._inner.getstate()
        return state

    def setstate(self, state: tuple[bytes, int]) -> None:
        self._inner.setstate(state)


def _decode(data: Buffer, errors: str = "strict", /) -> tuple[str, int]:
    raw = bytes(data)
    return _Decoder(errors).decode(raw, final=True), len(raw)


_INFO: Final = codecs.CodecInfo(
    name=CODEC_NAME,
    encode=codecs.utf_8_encode,
    decode=_decode,
    incrementalencoder=codecs.getincrementalencoder("utf-8"),
    incrementaldecoder=_Decoder,
)
codecs.register(lambda name: _INFO if name == CODEC_NAME else None)


@contextlib.contextmanager
def reporting_bad_bytes(report: BadBytesReport) -> Iterator[None]:
    """Decoders created under this block (and in tasks started under it) call `report` with bad bytes."""
    token = _report.set(report)
    try:
        yield
    finally:
        _report.reset(token)
