"""Where a streamed answer's markdown can be cut: top-level blocks that later text can no longer change.

Rendering the whole answer again for every update costs more the longer it gets. A top-level block
(a paragraph, a list, a closed code fence, a table) is finished once the next block has begun on a
complete line: markdown decides where a block ends from the lines up to the next one, so later text
cannot change it, and it renders alone to the same HTML it has within the whole answer. Link
reference definitions are the exception (a later `[x]: url` turns `[x]` above it into a link): an
answer with one is rendered whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final

from desktop_app.ui.conversation.markdown_html import markdown_parser

_NEWLINES: Final = re.compile(r"\r\n?")
"""The parser reads CR and CRLF as line ends: the same here, so line numbers match offsets."""


@dataclass(frozen=True)
class Split:
    finished: tuple[str, ...]
    """Markdown of the blocks finished since the last split, in order."""
    tail: str
    """The rest of the answer: the block still open (and a partly written line)."""


class MarkdownBlocks:
    """Cuts a growing text into finished blocks, each handed out once, and the open tail."""

    def __init__(self) -> None:
        self._done = 0
        """Characters of the (line-end normalised) text that are in finished blocks."""
        self.whole = False
        """Set for good once the text defines a link reference: it must then be rendered whole."""

    def split(self, text: str) -> Split | None:
        """The blocks finished since the last call and the open tail, or None if the text must be rendered whole.

        `text` must extend the text of the previous call.
        """
        if self.whole:
            return None
        rest = _NEWLINES.sub("\n", text)[self._done :]
        env: dict[str, Any] = {}
        tokens = markdown_parser().parse(rest, env)
        if env.get("references"):
            self.whole = True
            return None
        starts = [t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map is not None]
        complete = rest.count("\n")  # lines 0 … complete - 1 end with a newline
        cuts = [line for line in starts[1:] if line < complete]
        if not cuts:
            return Split((), rest)
        offsets = _line_offsets(rest, cuts[-1])
        bounds = [0, *(offsets[line] for line in cuts)]
        finished = tuple(rest[a:b] for a, b in pairwise(bounds))
        self._done += bounds[-1]
        return Split(finished, rest[bounds[-1] :])


def _line_offsets(text: str, last: int) -> list[int]:
    """Offsets in `text` where lines 0 … `last` begin."""
    offsets = [0]
    position = 0
    while len(offsets) <= last:
        position = text.index("\n", position) + 1
        offsets.append(position)
    return offsets
