"""The event loop the app runs on: qasync's Qt loop, with asyncio's async-generator hooks.

asyncio's own loops install `sys.set_asyncgen_hooks` while they run, so an async generator left
unfinished (an HTTP stream cut off early, an MCP session's reader) is closed on the loop and
`shutdown_asyncgens` finds it. qasync's `run_forever` runs Qt's loop without them: such generators
were finalised by the garbage collector outside any loop ("Exception ignored … no running event loop").
"""

from __future__ import annotations

import sys
from typing import Any

import qasync
from PySide6.QtWidgets import QApplication


class QtEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """qasync's loop, finalising async generators on itself as asyncio's loops do."""

    def run_forever(self) -> Any:
        previous = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook)
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*previous)


def qt_event_loop(app: QApplication) -> QtEventLoop:
    """A loop factory for `asyncio.Runner`."""
    return QtEventLoop(app)
