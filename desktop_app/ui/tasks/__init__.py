"""Tasks in the window: a running task's row in its tool card, and the Tasks view of every server's tasks.

Widgets here only draw; `TaskFeed` brings the core's task board to them as signals and takes
their Cancel clicks back. It may use the bridge and the core, never another pane.
"""
