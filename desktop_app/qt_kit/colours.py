"""The one fixed colour left: a grey for marks drawn once and kept (a blocked image's frame, a stopped
server's dot), which no change of theme redraws.

One grey must do on light and dark alike: it is chosen to meet 3:1 (marks and large text) on both
themes' backgrounds. Text and style sheets take the theme's tokens instead (`theme.muted`, `coloured`),
which meet 4.5:1 on each theme's own colours.
"""

from __future__ import annotations

from typing import Final

MUTED_COLOUR: Final = "#7d8590"
