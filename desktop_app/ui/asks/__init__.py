"""The window's side of the `Asker`: one non-modal card per question, placed where it belongs.

The sign-in card's parts (`sign_in_details`, `sign_in_paste`) are shown by the Servers panel too.
Imports the core, the bridge, the Qt kit and `widgets`; the conversation, the rooms and `shell` use it.
"""
