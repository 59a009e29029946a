"""Under `"sandbox": {"required": true}` the editor's sandbox switch is on, cannot be changed and says why; the
entry keeps what it said (the policy, not the entry, sandboxes the server)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_app.core.policy.document import ManagedPolicy
from desktop_app.core.policy.in_force import NO_POLICY, PolicyInForce
from desktop_app.core.sandbox.probe import BUBBLEWRAP, SandboxSupport
from desktop_app.core.server_config import ServerConfig, TransportKind
from desktop_app.ui.servers.server_editor import ServerEditor

REQUIRED = PolicyInForce(ManagedPolicy(sandbox_required=True), source=Path("/etc/mcp-desk/policy.json"))
PLAIN = ServerConfig(name="files", transport=TransportKind.STDIO, command="/usr/bin/python3")


def test_the_switch_is_on_and_fixed_with_the_reason(qapp: QApplication) -> None:
    editor = ServerEditor(None, PLAIN, managed=REQUIRED, support=SandboxSupport(BUBBLEWRAP, "/usr/bin/bwrap"))
    switch = editor.sandbox.enabled
    assert switch.isChecked() and not switch.isEnabled()
    assert switch.toolTip() == (
        "set by your organisation's policy: local servers run only in the sandbox (sandbox.required)"
    )
    assert editor.build().sandbox_enabled is False  # the entry as written
    editor.close()


def test_without_the_policy_the_switch_is_the_users(qapp: QApplication) -> None:
    editor = ServerEditor(None, PLAIN, managed=NO_POLICY, support=SandboxSupport(BUBBLEWRAP, "/usr/bin/bwrap"))
    switch = editor.sandbox.enabled
    assert not switch.isChecked() and switch.isEnabled()
    switch.setChecked(True)
    assert editor.build().sandbox_enabled is True
    editor.close()
