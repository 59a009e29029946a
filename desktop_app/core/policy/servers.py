"""Which servers may run and be installed under `servers.allow`: the one decision, as a `Refusal` or None.

An entry matches
- `registry`: a server the app installed from the registry under a name the glob matches (and, when
  the policy pins a registry, installed from that one). The entry's `origin` is believed only where
  the app's own record of its installs (`install_records`) backs it, with the launch it installed
  still the entry's: an imported or hand-written origin, or an installed entry whose command was
  changed since, matches no `registry` rule;
- `url`: a remote server whose address has that origin (scheme, host and port; `*.acme.example`
  matches its subdomains);
- `command`: a local server whose program is that name (any folder) or that path, with `args`
  glob patterns matched one per argument, in order, and as many arguments as patterns (a last
  `"**"` takes any further arguments).
A local server that sets an environment variable that changes which program runs or what it loads
(`launch_env`: PATH, NODE_OPTIONS, LD_PRELOAD, …) is refused even when an entry matches: the entry
allows the program, not the code that variable would bring in.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from fnmatch import fnmatchcase

from desktop_app.core.install_records import InstallRecords
from desktop_app.core.launch_env import launch_names
from desktop_app.core.policy.document import ANY_MORE_ARGS, ManagedPolicy, ServerRule, url_origin
from desktop_app.core.policy.refusal import Refusal
from desktop_app.core.server_config import ServerConfig

Which = Callable[[str], str | None]
Installed = Callable[[ServerConfig], bool]
"""Whether the app installed this entry as it stands (`InstallRecords.backs`)."""
_WINDOWS_SUFFIXES = (".exe", ".cmd", ".bat", ".com")


def server_refusal(
    policy: ManagedPolicy, config: ServerConfig, which: Which = shutil.which, installed: Installed | None = None
) -> Refusal | None:
    """None when `config` may run under `policy`, else which rule refuses it and why.

    `installed` says whether the app's record backs the entry's origin (default: the app's own record).
    """
    if policy.allow is None:
        return None
    installed = installed or InstallRecords().backs
    near: Refusal | None = None
    for rule in policy.allow:
        if _matches(rule, policy, config, which, installed):
            return environment_refusal(config, rule.field, rule.line)
        if near is None and rule.kind == "command" and config.is_stdio and _program_matches(rule, config, which):
            near = Refusal(
                f"'{config.name}' is not on the list of servers allowed to run: it allows {rule.pattern} only with"
                f" the arguments {' '.join(rule.args or ())}",
                rule.field,
                rule.line,
            )
    if near is not None:
        return near
    return Refusal(
        f"'{config.name}' ({describe_server(config)}) is not on the list of servers allowed to run",
        "servers.allow",
        policy.line("servers.allow"),
    )


def describe_server(config: ServerConfig) -> str:
    """What the policy looks at, in a few words: the program, or the address's origin."""
    if config.is_stdio:
        return f"command {program_name(config.command or '')}"
    return f"address {url_origin(config.url or '') or config.url}"


def program_name(command: str) -> str:
    """The executable's name without its folder (and, on Windows, without .exe and the like)."""
    name = command.replace("\\", "/").rsplit("/", 1)[-1]
    if os.name == "nt":
        name = name.lower()
        for suffix in _WINDOWS_SUFFIXES:
            name = name.removesuffix(suffix)
    return name


def _matches(rule: ServerRule, policy: ManagedPolicy, config: ServerConfig, which: Which, installed: Installed) -> bool:
    if rule.kind == "registry":
        name, registry = config.origin.get("name"), config.origin.get("registry")
        if not name or not registry or not fnmatchcase(name, rule.pattern):
            return False
        pinned = policy.registry is None or _same_registry(registry, policy.registry)
        return pinned and installed(config)
    if rule.kind == "url":
        return not config.is_stdio and config.url is not None and _origin_matches(config.url, rule.pattern)
    return (
        config.is_stdio
        and _program_matches(rule, config, which)
        and (rule.args is None or args_match(config.args, rule.args))
    )


def _program_matches(rule: ServerRule, config: ServerConfig, which: Which) -> bool:
    command = config.command or ""
    if not command:
        return False
    if "/" not in rule.pattern and "\\" not in rule.pattern:
        return fnmatchcase(program_name(command), program_name(rule.pattern))
    if "/" not in command and "\\" not in command:
        command = which(command) or ""  # a bare name runs what the PATH finds
    if not os.path.isabs(command):
        return False  # relative to a working folder the user chooses: no path rule can vouch for it
    return fnmatchcase(_comparable(command), _comparable(rule.pattern))


def same_program(program: str, command: str, which: Which) -> bool:
    """Whether `command` runs `program` exactly: by name when `program` has no folder, else by absolute path
    (a bare `command` is what the PATH finds)."""
    if not command:
        return False
    if "/" not in program and "\\" not in program:
        return program_name(command) == program_name(program)
    if "/" not in command and "\\" not in command:
        command = which(command) or ""
    return os.path.isabs(command) and _comparable(command) == _comparable(program)


def _comparable(path: str) -> str:
    path = os.path.normpath(path)
    return os.path.normcase(path)


def args_match(args: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
    """Each argument against its pattern, in order; as many arguments as patterns unless the last is `**`."""
    if patterns and patterns[-1] == ANY_MORE_ARGS:
        fixed = patterns[:-1]
        return len(args) >= len(fixed) and all(fnmatchcase(a, p) for a, p in zip(args, fixed, strict=False))
    return len(args) == len(patterns) and all(fnmatchcase(a, p) for a, p in zip(args, patterns, strict=True))


def _origin_matches(url: str, pattern: str) -> bool:
    origin = url_origin(url)
    if origin is None:
        return False
    if "://*." not in pattern:
        return origin == pattern
    scheme, _, rest = pattern.partition("://*.")
    have_scheme, _, have_rest = origin.partition("://")
    return have_scheme == scheme and have_rest.endswith("." + rest)


def _same_registry(recorded: str, pinned: str) -> bool:
    return recorded.strip().rstrip("/").removesuffix("/v0.1") == pinned


def environment_refusal(config: ServerConfig, field: str, line: int | None) -> Refusal | None:
    """A refusal when `config` sets a variable that changes what runs, though the rule at `field` allows it."""
    changing = launch_names(config.env) if config.is_stdio else []
    if not changing:
        return None
    names = ", ".join(changing)
    verb = "changes" if len(changing) == 1 else "change"
    return Refusal(
        f"'{config.name}' sets {names}, which {verb} which program runs or what it loads; the list allows the"
        " program, not that",
        field,
        line,
    )
