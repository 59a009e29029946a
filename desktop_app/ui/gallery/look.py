"""The gallery's few colours beyond `ui.widgets.style`: a caution (deprecated, unencrypted, a card that
disagrees) and a success (the installed server runs)."""

from __future__ import annotations

from typing import Final

CAUTION_COLOUR: Final = "#b7791f"
CAUTION_STYLE: Final = f"color: {CAUTION_COLOUR};"
OK_STYLE: Final = "color: #2f855a;"
