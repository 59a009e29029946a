"""The frozen app's entry point: the same `main` as the `mcp-desk` console script."""

import sys

from desktop_app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
