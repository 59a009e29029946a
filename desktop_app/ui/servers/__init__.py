"""The server manager in the window: every server's state, details, tools and log, the server editor,
the sandbox's sections and remedies, and the Servers menu's imports and exports.

It may use the asks and `widgets` below it, never another room.
"""
