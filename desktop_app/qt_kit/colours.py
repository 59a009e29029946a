"""Fixed colours for the modules whose sheets do not yet follow the theme's tokens (`tokens.py`, `theme.py`).

Their sheets are written once, so one grey must do on light and dark alike: it is chosen to meet 3:1
(large text and marks) on both themes' backgrounds. New code takes `theme.muted` instead, which
meets 4.5:1 on each theme's own colours.
"""

from __future__ import annotations

from typing import Final

MUTED_COLOUR: Final = "#7d8590"
MUTED: Final = f"color: {MUTED_COLOUR};"
"""Secondary text: notes, origins, hints."""
