"""`mcp-desk`'s headless subcommands, one module each (`run`, …); Qt-free like the core they drive."""
