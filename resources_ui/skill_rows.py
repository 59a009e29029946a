"""What the resource tree says of a skill: its type, whether it can be loaded, and its tooltip.

A skill is one row (its `SKILL.md`); its files and their digests are told here, in plain text,
from the core's own check (`core/skills/manifest.problem`), so the tree never judges a skill itself.
"""

from __future__ import annotations

from typing import Final

from desktop_app.core.content import human_size
from desktop_app.core.extensions.skills import SkillEntry
from desktop_app.core.skills.manifest import problem

SKILL_FILES_SHOWN: Final = 12


def _files(count: int) -> str:
    return f"{count} file{'' if count == 1 else 's'}"


def skill_type(skill: SkillEntry) -> str:
    """The type column of a skill's row: how many files, or that it cannot be loaded."""
    if problem(skill) is not None:
        return "skill · cannot be loaded"
    return f"skill · {_files(len(skill.files or ()))}"


def skill_state(skill: SkillEntry) -> str:
    """What a skill's row says of it: its files and digests, or why it cannot be loaded."""
    why = problem(skill)
    if why is not None:
        return f"cannot be loaded: {why}"
    return f"{_files(len(skill.files or ()))}, each with a declared digest; asks before loading"


def skill_tooltip(server: str, skill: SkillEntry) -> str:
    """Who offers the skill, what it is for, whether it can be loaded, and its files (plain text)."""
    lines = [f"Skill {skill.name} from {server}", skill.description, skill.uri, skill_state(skill)]
    files = skill.files or ()
    lines += [f"  {f.uri} ({human_size(f.size)})" for f in files[:SKILL_FILES_SHOWN]]
    if len(files) > SKILL_FILES_SHOWN:
        lines.append(f"  and {len(files) - SKILL_FILES_SHOWN:,} more files")
    return "\n".join(lines)
