"""The Settings dialog and its groups (the model, organisation sign-in, approval rules), and the secrets
password box.

It may use the asks and `widgets` below it, never another room; `shell` opens it and applies what it saved.
"""
