"""Files the app writes are its user's alone, whatever the umask: 0600 files in 0700 folders; the app's
own folders are tightened when another tool made them wider; a folder the user chose is left as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.app_settings import AppSettings, save_settings
from desktop_app.core.atomic_file import atomic_write, open_private, private_file
from desktop_app.core.chat.approval_rules import AlwaysAllowRules
from desktop_app.core.paths import private_dir
from desktop_app.core.tasks.model import TaskRecord
from desktop_app.core.tasks.store import TaskStore
from tests.file_modes import mode

pytestmark = pytest.mark.usefixtures("wide_umask")


def test_private_dir_makes_every_missing_folder_0700_and_tightens_a_wide_one(tmp_path: Path) -> None:
    made = private_dir(tmp_path / "a" / "b" / "c")
    assert [mode(p) for p in (made, made.parent, made.parent.parent)] == [0o700] * 3
    wide = tmp_path / "made by another tool"
    wide.mkdir(mode=0o755)
    wide.chmod(0o755)
    private_dir(wide)
    assert mode(wide) == 0o700


def test_private_files_are_0600_new_or_old_and_a_users_folder_is_left_alone(tmp_path: Path) -> None:
    users = tmp_path / "Documents"
    users.mkdir()
    users.chmod(0o755)
    old = users / "old.txt"
    old.write_text("before")
    old.chmod(0o644)
    with open_private(old, "a") as out:
        out.write(" and after")
    assert old.read_text() == "before and after" and mode(old) == 0o600
    assert mode(private_file(users / "new.db")) == 0o600
    assert mode(users) == 0o755

    atomic_write(tmp_path / "new folder" / "state.json", "{}")
    assert mode(tmp_path / "new folder" / "state.json") == 0o600 and mode(tmp_path / "new folder") == 0o700


def test_settings_rules_and_tasks_are_written_private(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "settings.json"
    save_settings(settings, AppSettings())
    save_settings(settings, AppSettings(theme="dark"))  # the second save keeps a backup
    rules = AlwaysAllowRules(tmp_path / "data" / "approvals.json")
    rules.add("server", "tool")
    TaskStore(tmp_path / "data" / "tasks.json").save(TaskRecord("server", "task-1", "tool", "2025-11-25"))

    for written in (settings, settings.with_name("settings.json.bak"), rules.path, tmp_path / "data" / "tasks.json"):
        assert mode(written) == 0o600, written.name
        assert mode(written.parent) == 0o700, written.parent.name
