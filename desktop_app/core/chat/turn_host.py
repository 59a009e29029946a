"""What a turn needs of the host, named: the host itself answers it, and so does the turn's recording view
(`traced_host.TracedHost`), each plainly, so the chat floor depends on this seam rather than on `ServerHost`.

Requests a turn sends a server go through `requests(server)` (recorded when the turn is traced); the rest of
a connection (its state, configuration, sign-in, asks) through `connection(server)`, never recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_app.core.asks.question import QuestionGate
    from desktop_app.core.asks.service import AskService
    from desktop_app.core.auth.server_auth import SignInServices
    from desktop_app.core.catalog import Catalog
    from desktop_app.core.connection import ServerConnection
    from desktop_app.core.connection.requests import ServerRequests
    from desktop_app.core.expansion import SecretLookup
    from desktop_app.core.trust import ServerTrust


class TurnHost(Protocol):
    """The servers as one turn sees them."""

    @property
    def catalog(self) -> Catalog: ...

    @property
    def questions(self) -> QuestionGate: ...

    @property
    def asks(self) -> AskService: ...

    @property
    def sign_in(self) -> SignInServices: ...

    @property
    def secrets(self) -> SecretLookup | None: ...

    @property
    def connections(self) -> Mapping[str, ServerConnection]: ...

    def connection(self, name: str) -> ServerConnection: ...

    def requests(self, server: str) -> ServerRequests: ...

    def trust(self, server: str) -> ServerTrust: ...
