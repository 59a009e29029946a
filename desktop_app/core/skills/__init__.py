"""Skills servers offer (`io.modelcontextprotocol/skills`): listed by name in the catalog, loaded whole on
demand after the user allows them, checked against their declared digests.

Qt-free. Sits beside apps/ and auth/: may import asks/, model/, the modules directly in core/ and
extensions/ (where the extension's wire format lives), never the host, a connection or the chat.
"""
