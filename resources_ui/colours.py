"""The one muted grey of secondary text and quiet marks, here so the browser and the window share it.

The browser sits below the window's widgets and cannot import them; `desktop_app/ui/style.py` takes
the grey from here.
"""

from __future__ import annotations

from typing import Final

MUTED_COLOUR: Final = "#8a8f98"
MUTED: Final = f"color: {MUTED_COLOUR};"
"""Secondary text: notes, origins, hints."""
