"""`mcp-desk policy`: the organisation's policy in force, rule by rule, and the files it came from:
policy.json and managed-mcp.json (the server lists in the shape other clients' managed settings use).

`--file PATH` reads another file the same way without putting it in force, so an administrator can
check a policy before placing it (a `managed-mcp.json`, or a file with its keys, is read as one). Exit 0
when the policy (or none) is in force, 2 when a file is there but cannot be followed (it then blocks
nothing; the problem names file, line and field).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from desktop_app.core.policy.converged import ALLOWED, DENIED, MANAGED_ONLY, ManagedMcpInForce, load_managed_mcp
from desktop_app.core.policy.document import ServerRule
from desktop_app.core.policy.in_force import PolicyInForce, load_policy
from desktop_app.core.policy.location import (
    ENV_VAR,
    MANAGED_MCP_ENV_VAR,
    MANAGED_MCP_FILENAME,
    Location,
    managed_mcp_location,
    policy_location,
)
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
        epilog=f"{ENV_VAR} and {MANAGED_MCP_ENV_VAR} name other files while none is in place at the system's location.",
    )
    parser.add_argument("--file", type=Path, metavar="PATH", help="check this policy file instead (not put in force)")
    return parser


def policy_command(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_PROBLEM if exc.code not in (0, None) else EXIT_OK
    # Read here rather than through `policy_in_force`, which would also log a problem this prints.
    if args.file is not None and _is_server_lists(args.file):
        lists = load_managed_mcp(Location(args.file, overridden=True))
        sys.stdout.write(printable(describe_server_lists(lists)) + "\n")
        return EXIT_PROBLEM if lists.problem is not None else EXIT_OK
    policy = load_policy(Location(args.file, overridden=True) if args.file else policy_location())
    text = describe(policy)
    problem = policy.problem
    if args.file is None:
        lists = load_managed_mcp(managed_mcp_location())
        text += "\n" + describe_server_lists(lists)
        problem = problem or lists.problem
    sys.stdout.write(printable(text) + "\n")
    return EXIT_PROBLEM if problem is not None else EXIT_OK


def _is_server_lists(path: Path) -> bool:
    """Whether `path` is in the converged shape: by its name, else by its keys."""
    if path.name == MANAGED_MCP_FILENAME:
        return True
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(f'"{key}"' in text for key in (ALLOWED, DENIED, MANAGED_ONLY))


def describe_server_lists(lists: ManagedMcpInForce) -> str:
    """managed-mcp.json as terminal text: where it came from, the denied entries, then the allowed ones."""
    location = lists.location
    lines = [location.ignored] if location is not None and location.ignored else []
    if lists.problem is not None:
        return "\n".join([*lines, f"The server lists cannot be followed, so they block nothing: {lists.problem}"])
    if lists.source is None:
        where = f"no file at {location.path}" if location is not None else "none was read"
        return "\n".join([*lines, f"No server lists are in force ({where})."])
    found = lists.lists
    lines.append(f"Server lists in force: {lists.source}")
    if found.denied:
        lines.append(f"Denied, whatever allows them ({_entries(len(found.denied))}):")
        lines += [f"  {entry.field} (line {entry.line}): {entry.words}" for entry in found.denied]
    else:
        lines.append(f"Denied: none ({DENIED} lists no server).")
    if found.allowed is None:
        allowed = "none may run" if found.managed_only else "any server not denied may run"
        lines.append(f"Allowed: {allowed} (no {ALLOWED}).")
    else:
        lines.append(f"Allowed: only those on the list ({_entries(len(found.allowed))}); others are blocked.")
        lines += [f"  {entry.field} (line {entry.line}): {entry.words}" for entry in found.allowed]
    if found.managed_only:
        lines.append(f"Only the organisation's servers: yes ({MANAGED_ONLY}, line {found.managed_only_line}).")
    return "\n".join(lines)


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


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
    sandboxed = "required, whatever their entries say" if rules.sandbox_required else "as their entries say"
    lines.append(f"Local servers sandboxed: {sandboxed}{_at(policy, 'sandbox.required')}")
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
