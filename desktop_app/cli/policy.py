"""`mcp-desk policy`: the organisation's policy in force, rule by rule, and the file it came from.

`--file PATH` reads another file the same way without putting it in force, so an administrator can
check a policy before placing it. Exit 0 when the policy (or none) is in force, 2 when the file is
there but cannot be followed (it then blocks nothing; the problem names file, line and field).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from desktop_app.core.policy.document import ServerRule
from desktop_app.core.policy.in_force import PolicyInForce, load_policy
from desktop_app.core.policy.location import ENV_VAR, Location, policy_location
from desktop_app.core.terminal_text import printable

PROG: Final = "mcp-desk policy"
EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 2
_FEATURES: Final[tuple[tuple[str, str, str], ...]] = (
    ("bundles", "bundles", "Bundles (.mcpb)"),
    ("apps", "apps", "MCP App views"),
    ("sampling", "sampling", "Sampling (servers using your model)"),
    ("alwaysAllow", "always_allow", '"Always allow"'),
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Print the organisation's policy in force and where it came from.",
        epilog=f"{ENV_VAR} names another policy file while none is in place at the system's location.",
    )
    parser.add_argument("--file", type=Path, metavar="PATH", help="check this policy file instead (not put in force)")
    return parser


def policy_command(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_PROBLEM if exc.code not in (0, None) else EXIT_OK
    # Read here rather than through `policy_in_force`, which would also log a problem this prints.
    policy = load_policy(Location(args.file, overridden=True) if args.file else policy_location())
    sys.stdout.write(printable(describe(policy)) + "\n")
    return EXIT_PROBLEM if policy.problem is not None else EXIT_OK


def describe(policy: PolicyInForce) -> str:
    """The policy as terminal text: where it came from, then each rule with the line that sets it."""
    location = policy.location
    lines: list[str] = []
    if location is not None and location.ignored:
        lines.append(location.ignored)
    if policy.problem is not None:
        lines += [f"The policy file cannot be followed, so it blocks nothing: {policy.problem}"]
        return "\n".join(lines)
    if policy.source is None:
        where = f"no file at {location.path}" if location is not None else "none was read"
        lines.append(f"No policy is in force ({where}): every server may run and every feature is on.")
        return "\n".join(lines)
    rules = policy.rules
    lines.append(f"Policy in force: {policy.source}")
    if rules.allow is None:
        lines.append("Servers: any server may run (no servers.allow).")
    else:
        entries = f"{len(rules.allow)} entr{'y' if len(rules.allow) == 1 else 'ies'}"
        lines.append(f"Servers: only those on the list ({entries}); others are blocked.")
        lines += [f"  {_rule(rule)}" for rule in rules.allow]
    if rules.registry is not None:
        lines.append(f"Registry: only {rules.registry} ({_line(policy, 'registry')}).")
    for feature, attribute, label in _FEATURES:
        on = getattr(rules.features, attribute)
        lines.append(f"{label}: {'on' if on else 'off'}{_at(policy, 'features.' + feature)}")
    every = "yes, no rule or allowance answers for the user" if rules.every_call else "no"
    lines.append(f"Every tool call asked: {every}{_at(policy, 'approvals.everyCall')}")
    if policy.identity_provider is not None:
        idp = policy.identity_provider
        lines.append(
            f"Identity provider: {idp['issuer']}, client {idp['clientId']} ({_line(policy, 'identityProvider')})."
        )
    return "\n".join(lines)


def _rule(rule: ServerRule) -> str:
    if rule.kind == "registry":
        what = f"registry name {rule.pattern}"
    elif rule.kind == "url":
        what = f"remote server at {rule.pattern}"
    elif rule.args is None:
        what = f"command {rule.pattern}, any arguments"
    else:
        what = f"command {rule.pattern} with arguments {' '.join(rule.args) or '(none)'}"
    return f"{rule.field} (line {rule.line}): {what}"


def _line(policy: PolicyInForce, name: str) -> str:
    return f"{name}, line {policy.rules.line(name)}"


def _at(policy: PolicyInForce, name: str) -> str:
    return f" ({_line(policy, name)})" if policy.rules.line(name) is not None else ""


if __name__ == "__main__":
    sys.exit(policy_command(sys.argv[1:]))
