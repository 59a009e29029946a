"""The skills server made to lie: the addresses of the `folder` fixture's skills, `lie` to make the server
declare what a file is not, and the server's log to find the refusal in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_app.core.host import ServerHost

REVIEW = "skill://team/review/SKILL.md"
GUIDE = "skill://team/review/references/GUIDE.md"
GREEDY = "skill://greedy/SKILL.md"


def lie(folder: Path, about: str, **claims: Any) -> None:
    (folder / "hostile.json").write_text(json.dumps({about: claims}), encoding="utf-8")


def log_of(host: ServerHost, server: str = "skills") -> str:
    return "\n".join(entry.text for entry in host.connection(server).log)
