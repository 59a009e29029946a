"""Turning the web engine's refusals into one line a user can read.

Most of what a view is refused never reaches the host as a request: the content security policy
and the iframe sandbox stop it inside the renderer, which only says so on the JavaScript console.
These patterns pick those lines out (Chromium's wording) so the view can show what it was denied.
"""

from __future__ import annotations

import re
from typing import Final

_QUOTED: Final = re.compile(r"'([^']{1,500})'")
_LOADS: Final = (
    ("Refused to connect to", "a connection to {}"),
    ("Refused to load the script", "the script {}"),
    ("Refused to load the stylesheet", "the stylesheet {}"),
    ("Refused to load the image", "the image {}"),
    ("Refused to load the font", "the font {}"),
    ("Refused to load media", "the media {}"),
    ("Refused to frame", "a frame of {}"),
    ("Refused to create a worker", "a worker from {}"),
    ("Refused to send form data to", "a form posted to {}"),
    ("Refused to set the document's base URI to", "a document base of {}"),
)


def console_notice(message: str) -> str | None:
    """What a console line says was blocked, for the user; None for anything else."""
    quoted = _QUOTED.search(message)
    target = quoted.group(1) if quoted else "an address"
    for prefix, what in _LOADS:
        if message.startswith(prefix):
            return f"Blocked {what.format(target)}: the app did not declare it."
    if message.startswith("Refused to evaluate a string as JavaScript"):
        return "Blocked eval(): apps may not run code built from strings."
    if message.startswith("Blocked opening") or "'allow-popups' permission is not set" in message:
        return f"Blocked a pop-up window ({target}): apps cannot open windows."
    if "attempting navigation of the top-level window is sandboxed" in message or message.startswith(
        "Unsafe attempt to initiate navigation"
    ):
        return "Blocked an attempt to navigate away from the conversation."
    if message.startswith("Blocked form submission"):
        return "Blocked a form submission: apps cannot submit forms."
    if message.startswith("Blocked script execution") or message.startswith("Refused to execute"):
        return "Blocked a script the app's policy does not allow."
    return None
