"""The status bar in words a user reads: counts with the right noun, the catalog against pasting every
resource said as a comparison, less said (never cut) when narrow, and an unencrypted secret store as a
link that offers to encrypt it."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from pytestqt.qtbot import QtBot

from desktop_app.core.paths import data_dir
from desktop_app.core.secret_store import ENCRYPTED_FILENAME, encryption_advice, open_secret_store
from desktop_app.ui.settings.password_dialog import PasswordDialog
from desktop_app.ui.shell.main_window import MainWindow
from desktop_app.ui.shell.status_meter import ENCRYPT_TIP, dump_part, plural
from desktop_app.ui.widgets.fitting_label import FittingLabel
from tests.hosting import eventually
from tests.window_kit import run_window_scenario

until = functools.partial(eventually, timeout=30.0)


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A secrets file of this test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def test_counts_and_the_comparison_with_pasting_every_resource_read_as_words() -> None:
    assert (plural(1, "entry", "entries"), plural(9, "entry", "entries"), plural(2, "token")) == (
        "1 entry",
        "9 entries",
        "2 tokens",
    )
    more = dump_part(424, 90_768)
    assert more is not None
    assert more.long == "pasting every resource would take 90,768 (214× as many)"
    assert more.sentence.endswith("90,768 tokens, 214× as many.")
    assert dump_part(400, 600) is not None and "(1.5× as many)" in dump_part(400, 600).long  # type: ignore[union-attr]
    # What read "(200.0%)": the resources are smaller than their catalog.
    fewer = dump_part(424, 212)
    assert fewer is not None and fewer.long == "pasting every resource would take only 212" and fewer.short is None
    assert "%" not in more.long + fewer.long + fewer.sentence
    assert dump_part(424, 0) is None


def test_a_fitting_label_says_the_longest_wording_that_fits_and_is_a_link_only_when_clickable(qtbot: QtBot) -> None:
    label = FittingLabel("Secrets: plaintext file, not encrypted", "Secrets: not encrypted")
    qtbot.addWidget(label)
    label.show()
    clicks: list[bool] = []
    label.clicked.connect(lambda: clicks.append(True))
    label.resize(label.sizeHint())
    assert label.shown() == label.text() == "Secrets: plaintext file, not encrypted" and label.fits()
    label.resize(label.minimumSizeHint())
    assert label.shown() == "Secrets: not encrypted" and label.fits()
    assert label.text() == "Secrets: plaintext file, not encrypted", "the whole wording stays its text"
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton)
    assert clicks == [], "not a link"
    label.set_clickable(True)
    assert label.font().underline() and label.cursor().shape() is Qt.CursorShape.PointingHandCursor
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton)
    label.setFocus()
    qtbot.keyClick(label, Qt.Key.Key_Space)
    assert clicks == [True, True]

    model = FittingLabel("Model: " + "a-very-long-model-name-" * 4, "a-very-long-model-name-" * 4, elide_last=True)
    qtbot.addWidget(model)
    model.show()
    model.resize(model.minimumSizeHint())
    assert "…" in model.shown() and model.fits(), "a name longer than any room is elided in the middle"


def test_plaintext_secrets_are_encrypted_from_the_status_bar_link(qapp: QApplication, tmp_path: Path) -> None:
    open_secret_store(data_dir(), prefer="plaintext-file").set("TOKEN", "tok-never-shown")

    async def steps(window: MainWindow) -> None:
        label = window.status_meter.secrets_label
        await until(lambda: label.text() == "Secrets: plaintext file, not encrypted", what="the store opened")
        assert window.bridge.secrets is not None
        assert (
            label.clickable
            and label.toolTip() == f"{ENCRYPT_TIP}\n\n{encryption_advice(window.bridge.secrets.backend)}"
        )
        assert "GNOME Keyring" in label.toolTip() or "Keychain" in label.toolTip() or "Credential" in label.toolTip()

        window.resize(800, 600)
        await until(lambda: window.width() == 800, what="a narrow window")
        bar = window.statusBar().findChildren(FittingLabel)
        await until(lambda: all(part.fits() for part in bar), seen=lambda: str([part.shown() for part in bar]))

        center = label.rect().center()
        QtBot(qapp).mouseClick(label, Qt.MouseButton.LeftButton, pos=center)
        await until(lambda: [d for d in window.findChildren(PasswordDialog) if d.isVisible()], what="the password")
        dialog = next(d for d in window.findChildren(PasswordDialog) if d.isVisible())
        dialog.password.setText("a new password")
        dialog.repeat.setText("a new password")
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        QtBot(qapp).mouseClick(ok, Qt.MouseButton.LeftButton)
        await until(lambda: label.text() == "Secrets: encrypted file", what="the secrets encrypted")
        assert not label.clickable and label.toolTip() == window.bridge.secrets.backend.label
        assert (data_dir() / ENCRYPTED_FILENAME).exists()

    run_window_scenario(qapp, tmp_path, steps, servers={})
