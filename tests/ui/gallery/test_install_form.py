"""The install form draws every declared field and reads back exactly what `--set` would give."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLabel, QLineEdit, QPlainTextEdit

from desktop_app.core.registry.fields import Field, package_fields, remote_fields
from desktop_app.core.registry.model import parse_entry
from desktop_app.core.secret_store import SecretBackend
from desktop_app.ui.gallery.install_form import InstallForm, keep_stored
from tests.servers.registry_documents import weather
from tests.servers.registry_fixture import response


def test_fields_become_the_right_inputs(qapp: QApplication) -> None:
    entry = parse_entry(response(weather()))
    form = InstallForm()
    form.set_fields(package_fields(entry.server.packages[0]))
    port, key, units = form.editor("--port"), form.editor("WEATHER_API_KEY"), form.editor("WEATHER_UNITS")
    assert isinstance(port, QLineEdit) and isinstance(units, QComboBox)
    assert isinstance(key, QLineEdit) and key.echoMode() is QLineEdit.EchoMode.Password
    assert [units.itemText(i) for i in range(units.count())] == ["", "celsius", "fahrenheit"]
    assert units.currentText() == "celsius"  # the default
    assert form.answers() == {"WEATHER_UNITS": ("celsius",)}
    port.setText(" 8080 ")
    key.setText("sk-1")
    units.setCurrentText("fahrenheit")
    assert form.answers() == {"--port": ("8080",), "WEATHER_API_KEY": ("sk-1",), "WEATHER_UNITS": ("fahrenheit",)}


def test_remote_fields_and_stored_secrets(qapp: QApplication) -> None:
    remote = parse_entry(response(weather())).server.remotes[0]
    form = InstallForm()
    form.set_store(SecretBackend("os-keyring", "Secret Service", encrypted=True))
    form.set_fields(remote_fields(remote), prefill={"tenant": ("acme",)}, stored={"token"})
    token = form.editor("token")
    assert isinstance(token, QLineEdit) and token.text() == ""
    assert token.placeholderText() == keep_stored("in the system keyring")
    assert token.placeholderText() == "stored in the system keyring — leave empty to keep"
    assert form.findChild(QLabel, "installStoreCaution") is None  # an encrypted store needs no caution
    assert form.answers() == {"tenant": ("acme",), "X-Region": ("eu-west-1",)}  # a blank stored secret is kept

    # A plaintext store: every secret's field says so, and one line under the form says which file.
    form.set_store(SecretBackend("plaintext-file", "Plaintext", encrypted=False, path=Path("/home/me/secrets.cfg")))
    form.set_fields(remote_fields(remote))
    token = form.editor("token")
    assert isinstance(token, QLineEdit) and "in a plaintext file, not encrypted" in token.toolTip()
    caution = form.findChild(QLabel, "installStoreCaution")
    assert isinstance(caution, QLabel)
    assert caution.text() == "Secrets typed here are kept in a plaintext file, not encrypted (/home/me/secrets.cfg)."


def test_booleans_paths_and_repeated_values(qapp: QApplication) -> None:
    form = InstallForm()
    form.set_fields(
        [
            Field("debug", "Debug", "option", format="boolean", default="true"),
            Field("folder", "Folder", "option", format="directory", default="/home/me"),
            Field("dirs", "Dirs", "option", format="directory", repeated=True),
        ]
    )
    assert isinstance(form.editor("debug"), QCheckBox) and isinstance(form.editor("folder"), QLineEdit)
    dirs = form.editor("dirs")
    assert isinstance(dirs, QPlainTextEdit)
    dirs.setPlainText("/a\n\n/b c\n")
    assert form.answers() == {"debug": ("true",), "folder": ("/home/me",), "dirs": ("/a", "/b c")}
    form.set_fields([])
    assert form.answers() == {}
