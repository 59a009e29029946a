"""MCP App views: sandboxed web pages in QtWebEngine, bridged to the Qt-free `core.apps` session.

Nothing here imports QtWebEngine at module level: the engine loads when the first view is
created, so a user who never meets an app pays nothing for it at start-up. Imports the core,
the bridge, the Qt kit, the conversation widgets, the asks and `widgets`; `shell` composes it.
"""
