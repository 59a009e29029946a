"""A rich text document that grows at its end: finished blocks are added once, the open tail replaced.

`setHtml` on the whole answer parses and lays out everything again for every update; adding at the
end lets Qt lay out only what changed. Each piece of HTML is parsed alone into a scratch document
and copied in as a fragment. Qt merges a fragment's first block into the block at the cursor, so a
piece that starts with a paragraph gets a block of its own and that block gets the piece's formats
back; a piece that starts with a list or a table starts a new block by itself. The result is the
document `setHtml` makes of the same HTML in one go (the tests compare the two).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFrame,
)


class StreamedDocument:
    """Appends HTML to `document`; the last piece appended with `update` is the tail the next one replaces."""

    def __init__(self, document: QTextDocument) -> None:
        self._document = document
        self._scratch = QTextDocument()
        self._tail: int | None = None
        """Where the open tail begins (everything before it is finished); None while nothing is."""
        self._blank = True
        self._last: tuple[QTextBlockFormat, QTextCharFormat] = (QTextBlockFormat(), QTextCharFormat())
        """The formats of the last finished block: removing the tail after an empty block loses them."""
        self._pending = ""
        """Finished HTML that ends with a block Qt's importer would fold into the next one (an empty
        heading or list item, a rule): it goes in with the next piece."""
        document.setUndoRedoEnabled(False)  # read-only text: an undo history would only hold memory
        document.clear()

    @property
    def finished_end(self) -> int:
        """The position where the open tail begins: the text before it no longer changes."""
        return self._tail or 0

    def update(self, finished: Sequence[str], tail: str) -> None:
        """Replace the tail with the HTML of newly finished blocks, then the new tail."""
        if self._tail is None:
            self._document.clear()  # nothing finished yet: start from a fresh document, as setHtml does
            self._blank = True
        # PySide6 6.12 releases None once too often on every call of a method that returns nothing: such
        # calls are kept to what the update needs (a cursor placed by movePosition, formats set if changed).
        cursor = QTextCursor(self._document.findBlock(self._tail or 0))
        cursor.beginEditBlock()  # one contentsChanged, one relayout
        if self._tail is not None:
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)  # the tail begins at its end
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            if cursor.hasSelection():
                cursor.removeSelectedText()
            _set_formats(cursor, *self._last)
        for html in finished:
            # Only the document's last block keeps the whitespace after the HTML's last tag.
            self._pending = self._append(cursor, self._pending + html.rstrip("\n"))
        if not self._blank:
            cursor.movePosition(QTextCursor.MoveOperation.End)
            self._tail = cursor.position()
            self._last = (cursor.blockFormat(), cursor.blockCharFormat())
        self._append(cursor, self._pending + tail, keep=True)
        cursor.endEditBlock()

    def _append(self, cursor: QTextCursor, html: str, *, keep: bool = False) -> str:
        """Add `html` at the end; what has nothing to show alone is returned instead, unless `keep`."""
        if not html:
            return ""
        scratch = self._scratch
        scratch.setHtml(html)
        fragment = QTextDocumentFragment(scratch)
        frames = scratch.rootFrame().childFrames()
        if not keep and (fragment.isEmpty() or _ends_open(scratch, frames)):
            return html
        first = scratch.begin()
        opens_table = bool(frames) and frames[0].firstPosition() == 1
        # In a list: its block format names the list. (PySide6 6.12's QTextBlock.textList() releases None
        # once too often when the block is in none, and crashes the interpreter at exit.)
        own_block = not opens_table and first.blockFormat().objectIndex() == -1
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if own_block and not self._blank:
            cursor.insertBlock()
        self._blank = False
        start = cursor.position()
        cursor.insertFragment(fragment)
        if own_block:
            _set_formats(QTextCursor(self._document.findBlock(start)), first.blockFormat(), first.charFormat())
        return ""


def _set_formats(cursor: QTextCursor, block: QTextBlockFormat, characters: QTextCharFormat) -> None:
    """Give the cursor's block these formats, calling Qt only for what differs."""
    if cursor.blockFormat() != block:
        cursor.setBlockFormat(block)
    if cursor.blockCharFormat() != characters:
        cursor.setBlockCharFormat(characters)


def _ends_open(document: QTextDocument, frames: Sequence[QTextFrame]) -> bool:
    """Whether the document ends with an empty block the importer would fill with what follows
    (an empty list item, say); the empty block after a table stays."""
    last = document.lastBlock()
    return last.length() == 1 and not (frames and frames[-1].lastPosition() + 1 == last.position())
