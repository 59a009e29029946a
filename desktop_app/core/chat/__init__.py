"""The chat engine: a catalog-only context, on-demand reads, approval-gated tools, driven by LiteLLM.

Qt-free and import-light: litellm (a 3.5 s import) is loaded only when a turn first needs it.
"""
