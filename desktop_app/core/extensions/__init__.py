"""The wire format of MCP extensions, as far as MCP Desk writes it by hand: identifiers, what the
client advertises, the `_meta` a server fills in, request and result types the SDK lacks.

One small module per extension, built on the SDK's extension hooks, so each can be swapped for the
SDK's own support when it lands. The bottom floor of the core: imports the SDK and nothing of ours
but other modules here.
"""
