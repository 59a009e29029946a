"""An organisation's managed policy: which servers may run, which features are on, the identity
provider; read from a file outside the user's reach.

Qt-free. Sits beside apps/ and auth/: may import asks/, model/ and the modules directly in core/,
never the host, a connection or the chat (the host asks it before starting a server).
"""
