"""What servers (and the app on their behalf) ask the user: the `Question` family and its `Asker`.

Qt-free: imports the rest of the core at most; the window, the CLI and tests implement `Asker`.
"""
