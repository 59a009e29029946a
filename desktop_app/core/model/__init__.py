"""The model library: which providers MCP Desk offers, the model's settings, and the streamed call.

Qt-free and import-light: LiteLLM (a 3.5 s import) loads only when a call first needs it. Imports
only the modules directly in `desktop_app/core/`; the chat engine and sampling build on it.
"""
