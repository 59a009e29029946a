"""The MCP conformance suite's client scenarios, run against MCP Desk (`client.py`, `runner.py`)."""
