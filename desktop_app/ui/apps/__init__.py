"""MCP App views: sandboxed web pages in QtWebEngine, bridged to the Qt-free `core.apps` session.

Nothing here imports QtWebEngine at module level: the engine loads when the first view is
created, so a user who never meets an app pays nothing for it at start-up. Imports the core,
the bridge, `resources_ui` and the conversation widgets; the main window composes it.
"""
