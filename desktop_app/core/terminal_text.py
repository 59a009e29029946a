"""Text a server or a model wrote, made safe to print: control characters shown, never obeyed.

A terminal obeys what it is sent. An escape sequence in a tool name, a tool result repeated by
the model or a server's stderr line can move the cursor and erase the approval question the user
is answering, write the clipboard (OSC 52), dress a link as other text (OSC 8) or retitle the
window; a carriage return starts the line again over what was printed; a bidi override reorders
it. Everything MCP Desk prints from such a source goes through `printable`: each of those
characters appears as its escape (`\\x1b`, `\\r`, `\\u202e`), so the user sees that one was there.
Line feeds and tabs stay; colour codes (SGR) are dropped, since servers colour their logs and
a colour can also hide text (black on black, "concealed").
"""

from __future__ import annotations

import re
from typing import Final

_COLOUR: Final = re.compile(r"\x1b\[[0-9;:]*m")
_CONTROL: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but line feed and tab, DEL, C1 (0x9b is a one-byte CSI)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"  # bidi marks, embeddings, overrides and isolates
)
_NAMED: Final = {"\r": "\\r"}


def printable(text: str) -> str:
    """`text` with colour codes removed and every other control character written out as its escape."""
    text = _COLOUR.sub("", text.replace("\r\n", "\n"))
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if named := _NAMED.get(character):
        return named
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
