"""The stdout codec: invalid bytes become U+FFFD and are reported; valid text split anywhere is not."""

from __future__ import annotations

import codecs

from desktop_app.core.lenient_utf8 import CODEC_NAME, reporting_bad_bytes


def _decoder_reporting(into: list[bytes]) -> codecs.IncrementalDecoder:
    with reporting_bad_bytes(into.append):
        return codecs.getincrementaldecoder(CODEC_NAME)("replace")


def test_invalid_bytes_are_replaced_and_reported_exactly() -> None:
    bad: list[bytes] = []
    decoder = _decoder_reporting(bad)
    assert decoder.decode(b'{"a": 1}\n\xff\xfe\x80\nok\n') == '{"a": 1}\n\ufffd\nok\n'
    assert bad == [b"\xff\xfe\x80"]


def test_a_character_split_across_reads_is_not_invalid() -> None:
    bad: list[bytes] = []
    decoder = _decoder_reporting(bad)
    data = "naïve — 日本\n".encode()
    text = "".join(decoder.decode(data[i : i + 1]) for i in range(len(data))) + decoder.decode(b"", final=True)
    assert text == "naïve — 日本\n"
    assert bad == []


def test_a_truncated_character_at_the_end_is_reported() -> None:
    bad: list[bytes] = []
    decoder = _decoder_reporting(bad)
    assert decoder.decode("é".encode()[:1], final=True) == "\ufffd"
    assert bad == [b"\xc3"]


def test_encoding_is_plain_utf8() -> None:
    assert "é\n".encode(CODEC_NAME) == "é\n".encode()
    assert codecs.decode(b"a\xffb", CODEC_NAME) == "a\ufffdb"
