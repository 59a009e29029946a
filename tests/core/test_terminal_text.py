"""Control characters from servers and models are shown as escapes; line breaks, tabs and letters stay."""

from __future__ import annotations

import pytest

from desktop_app.core.terminal_text import printable


@pytest.mark.parametrize(
    ("hostile", "shown"),
    [
        ("\x1b]52;c;Y3VybA==\x07", "\\x1b]52;c;Y3VybA==\\x07"),  # clipboard write
        ("\x1b]8;;http://evil.example/\x1b\\docs", "\\x1b]8;;http://evil.example/\\x1b\\docs"),  # hyperlink
        ("ok\rdeny", "ok\\rdeny"),  # back to the start of the line
        ("\x1b[2K\x1b[1A", "\\x1b[2K\\x1b[1A"),  # erase the line, go up
        ("\x9b2J", "\\x9b2J"),  # the one-byte CSI (C1)
        ("\x08\x08\x7f", "\\x08\\x08\\x7f"),  # backspaces, DEL
        ("abc\u202edef\u2066", "abc\\u202edef\\u2066"),  # bidi override and isolate
        ("\x1b[30;40mhidden\x1b[0m \x1b[8mconcealed\x1b[m", "hidden concealed"),  # colours go
    ],
)
def test_control_characters_are_written_out(hostile: str, shown: str) -> None:
    assert printable(hostile) == shown


def test_ordinary_text_is_unchanged() -> None:
    text = "Résumé:\tline one\nline two — 東京 ✓\n"
    assert printable(text) == text
    assert printable("windows\r\nline ends\r\n") == "windows\nline ends\n"
