"""What the model got, in the window: a request's ledger (its parts and tokens, the provider's usage,
the payload as sent), opened from the answer it produced, and Export chat.

Widgets here only draw; `LedgerActions` finds the trace of the chat on screen and takes the
clicks. It may use the bridge and the core, never another pane.
"""
