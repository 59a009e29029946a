"""The install form draws every declared field and reads back exactly what `--set` would give."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLineEdit, QPlainTextEdit

from desktop_app.core.registry.fields import Field, package_fields, remote_fields
from desktop_app.core.registry.model import parse_entry
from desktop_app.ui.gallery.install_form import KEEP_STORED, InstallForm
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
    form.set_fields(remote_fields(remote), prefill={"tenant": ("acme",)}, stored={"token"})
    token = form.editor("token")
    assert isinstance(token, QLineEdit) and token.placeholderText() == KEEP_STORED and token.text() == ""
    assert form.answers() == {"tenant": ("acme",), "X-Region": ("eu-west-1",)}  # a blank stored secret is kept


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
