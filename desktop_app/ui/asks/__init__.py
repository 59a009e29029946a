"""The window's side of the `Asker`: one non-modal card per question, placed where it belongs.

Imports the core, the bridge, `resources_ui` and the conversation widgets; the main window composes it.
"""
