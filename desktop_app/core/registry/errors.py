"""The error every install step raises when it cannot go ahead as asked (kept apart so the checks
that build a plan can raise it without importing the planner)."""


class PlanError(Exception):
    """The install cannot go ahead as asked; the message says what to change."""
