"""Roots: the folders a server may work in, exactly as the user listed them.

A server's own `"roots"` in `servers.json` (the server editor's list) win; a server with none
gets the app-wide default roots from Settings; `mcp-desk run --root` adds to either. Entries are
folder paths (`~` and `$VARS` expanded, made absolute) or `file://` URIs; servers always see
`file://` URIs. Answering `roots/list` asks nobody: the user already chose.
"""

from __future__ import annotations

from collections.abc import Callable

from mcp.client.session import ClientRequestContext
from mcp_types import ListRootsResult, Root

from desktop_app.core.asks.context import AskContext
from desktop_app.core.root_paths import effective_roots, root_name, root_uri


class Roots:
    """Answers one server's `roots/list` from the user's lists."""

    def __init__(self, context: AskContext, own: Callable[[], tuple[str, ...] | None]) -> None:
        self._context = context
        self._own = own

    def uris(self) -> list[str]:
        """The roots as the server sees them; entries that cannot be read are left out and noted."""
        service = self._context.service
        uris: list[str] = []
        for entry in effective_roots(self._own(), service.default_roots, service.extra_roots):
            try:
                uris.append(root_uri(entry))
            except ValueError as exc:
                self._context.note("warning", f"left out a root: {exc}")
        return list(dict.fromkeys(uris))

    async def __call__(self, _request: ClientRequestContext) -> ListRootsResult:
        uris = self.uris()
        self._context.note("info", f"told the server its roots: {', '.join(uris) or 'none'}")
        return ListRootsResult(roots=[Root(uri=uri, name=root_name(uri)) for uri in uris])  # type: ignore[arg-type]
