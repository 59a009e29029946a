"""What the model got: a per-request ledger of the parts sent and their tokens, traces of a whole turn,
export and replay.

Qt-free. Sits beside apps/ and auth/: may import asks/, model/ and the modules directly in core/,
never the host, a connection or the chat (the chat engine records into it).
"""
