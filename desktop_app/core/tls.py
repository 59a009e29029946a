"""One TLS context for all of the app's HTTP clients.

httpx builds a new `SSLContext` for every client unless it is given one, and building one loads the
whole CA store: about 25 ms of CPU, holding the interpreter (and so the window) the while. The app
opens a client per connection, sign-in, registry or domain look-up, so it hands each the context
httpx would have built, made once for each trust setting: httpx's CA store, or `SSL_CERT_FILE` /
`SSL_CERT_DIR` as they are at the time where the client trusts the environment.

The context is shared: nothing may change it (no client certificate, no other CA); a client that
needs other TLS settings builds a context of its own.
"""

from __future__ import annotations

import functools
import os
import ssl

import httpx2


def tls_context(*, trust_env: bool = True) -> ssl.SSLContext:
    """The TLS context httpx would build (`trust_env`: honouring `SSL_CERT_FILE` / `SSL_CERT_DIR`), built once."""
    if not trust_env:
        return _built(False, None, None)
    return _built(True, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _built(trust_env: bool, _cafile: str | None, _capath: str | None) -> ssl.SSLContext:
    """One context per trust setting and environment's certificates (httpx reads them while it builds)."""
    return httpx2.create_ssl_context(trust_env=trust_env)


forget = _built.cache_clear
"""Build the contexts again when next asked (the CA store changed on disk)."""
