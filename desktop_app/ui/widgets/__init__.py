"""The window's own small widgets, shared by its rooms: frames and fitted text, plain-text labels and
tooltips, the shared styles, boxes that never block the event loop, what an empty list says.

The bottom floor of `ui`: it imports nothing else of `ui`.
"""
