"""The names that change which program an entry starts or what it loads, and the command's own path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.core.launch_env import changes_launch, launch_names, program_path, refusal


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "Path",  # Windows ignores case
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PERL5OPT",
        "RUBYOPT",
        "JAVA_TOOL_OPTIONS",
        "BASH_ENV",
        "BASH_FUNC_ls%%",
        "npm_config_registry",  # npm reads its settings in any case
        "UV_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "DOCKER_HOST",
        "HOME",
    ],
)
def test_names_that_change_what_runs(name: str) -> None:
    assert changes_launch(name)


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "API_REGION", "LOG_LEVEL", "NODE_ENV", "PYTHONUNBUFFERED", "LANG"])
def test_names_that_only_change_what_a_server_does(name: str) -> None:
    assert not changes_launch(name)


def test_refusal_names_them_in_order() -> None:
    assert launch_names(["TOKEN", "PATH", "LD_PRELOAD"]) == ["LD_PRELOAD", "PATH"]
    assert refusal(["LD_PRELOAD", "PATH"], "bundle", "bundles") == (
        "the bundle sets LD_PRELOAD, PATH, which change which program runs or what it loads; bundles may not set them"
    )


def test_program_path_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert program_path("tool", lambda _name: "bin/tool") == os.path.join(tmp_path, "bin", "tool")
    assert program_path("tool", lambda _name: None) is None
