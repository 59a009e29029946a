"""The window itself: the Qt application and its event loop, the main window and its docks, the panes
filled into it and wired to each other, the menus' actions that span rooms, the status bar, Help.

The top floor of `ui`: it may use every room below it (`chat`, `servers`, `settings`, …).
"""
