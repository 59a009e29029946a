"""What decides which program a server entry starts and what that program loads.

The consent for a local server shows a command; it is only honest if that command is what runs.
Two things can make it lie. A bare name (`python3`) is looked up on a PATH, and the entry's own
environment is the one the child starts with, so an entry that sets PATH picks the program. And
environment variables tell loaders and interpreters to run extra code or fetch other packages
before the shown program does anything of its own.

So installs resolve the command to an absolute path with the app's own PATH (`program_path`) and
store that, and the names below are refused in environments written by a publisher (bundles,
registry entries) and shown in red in entries the user edits by hand. The list is deliberate:
    - program search: PATH, and PATHEXT and COMSPEC on Windows;
    - the dynamic loader: LD_* (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, …) and macOS's DYLD_*;
    - interpreter start-up code and module paths: NODE_OPTIONS (`--require`), NODE_PATH,
      PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE (its `usercustomize`), PYTHONPLATLIBDIR,
      PYTHONEXECUTABLE, PERL5OPT, PERL5LIB, PERLLIB, PERL5DB, RUBYOPT, RUBYLIB, JAVA_TOOL_OPTIONS,
      _JAVA_OPTIONS, JDK_JAVA_OPTIONS, CLASSPATH;
    - shells that wrapper scripts run: BASH_ENV, ENV, SHELLOPTS, BASHOPTS and exported functions
      (BASH_FUNC_*);
    - the runners' own settings, which pick the package, index, registry or daemon: NPM_CONFIG_*
      (npm reads any case), UV_*, PIP_*, PIPX_*, DOCKER_*;
    - where those tools read their settings files from: HOME, USERPROFILE, APPDATA, XDG_CONFIG_HOME.
Values are not judged: a variable outside the list changes what the server does, not what runs.
Names are compared in upper case (Windows ignores case, npm reads `npm_config_*` too).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Final

Which = Callable[[str], str | None]

LAUNCH_NAMES: Final = frozenset(
    {
        "PATH",
        "PATHEXT",
        "COMSPEC",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PYTHONPLATLIBDIR",
        "PYTHONEXECUTABLE",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "PERL5DB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "HOME",
        "USERPROFILE",
        "APPDATA",
        "XDG_CONFIG_HOME",
    }
)
LAUNCH_PREFIXES: Final = ("LD_", "DYLD_", "BASH_FUNC_", "NPM_CONFIG_", "UV_", "PIP_", "PIPX_", "DOCKER_")


def changes_launch(name: str) -> bool:
    """Whether setting `name` changes which program starts or what it loads."""
    upper = name.upper()
    return upper in LAUNCH_NAMES or upper.startswith(LAUNCH_PREFIXES)


def launch_names(names: Iterable[str]) -> list[str]:
    """The names among `names` that change what runs, sorted."""
    return sorted(name for name in names if changes_launch(name))


def refusal(names: list[str], who: str, group: str) -> str:
    """One line: the `who` ("bundle") sets these names, which `group` ("bundles") may not set."""
    change, them = ("changes", "it") if len(names) == 1 else ("change", "them")
    listed = ", ".join(names)
    return f"the {who} sets {listed}, which {change} which program runs or what it loads; {group} may not set {them}"


def program_path(command: str, which: Which) -> str | None:
    """`command` as the absolute path the app's own PATH finds (None when it finds nothing)."""
    found = which(command)
    return os.path.abspath(found) if found else None
