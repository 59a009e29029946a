"""What the sandbox refused, read back from a server's stderr and the proxy's log line, offered only where safe."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.sandbox.bubblewrap import Layout
from desktop_app.core.sandbox.denials import Denial, Denials, allowed, refused_path, writable_folder
from desktop_app.core.sandbox.refusals import NOT_ALLOWED, Refusals, refused_host
from desktop_app.core.sandbox.settings import SandboxSettings


@pytest.mark.parametrize(
    "line",
    [
        "PermissionError: [Errno 13] Permission denied: '/w/out.txt'",
        "OSError: [Errno 30] Read-only file system: '/w/out.txt'",
        "Error: EACCES: permission denied, open '/w/out.txt'",
        "Error: EROFS: read-only file system, open '/w/out.txt'",
        "[Error: EPERM: operation not permitted, unlink '/w/out.txt'] { errno: -1, code: 'EPERM' }",
        "touch: cannot touch '/w/out.txt': Read-only file system",
        'PermissionError: [Errno 13] Permission denied: "/w/it\'s.txt"',
    ],
)
def test_the_refused_path_is_read_from_python_node_and_shell_words(line: str) -> None:
    assert refused_path(line) in ("/w/out.txt", "/w/it's.txt")


@pytest.mark.parametrize(
    "line",
    [
        "FileNotFoundError: [Errno 2] No such file or directory: '/w/out.txt'",
        "PermissionError: [Errno 13] Permission denied: 'relative/out.txt'",
        "Error: EACCES: permission denied",
        "Error: EPERM: operation not permitted, rename '/w/a' -> '/w/b'",
        "I was told 'Permission denied' about nothing",
    ],
)
def test_lines_that_name_no_single_absolute_path_are_not_read(line: str) -> None:
    assert refused_path(line) is None


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    home = tmp_path / "home" / "u"
    for folder in ("notes", ".ssh", ".config/mcp-desk", "private", "work/.ssh-not", "keep"):
        (home / folder).mkdir(parents=True)
    (home / "notes" / "old.txt").write_text("x")
    return Layout(home, (home / ".config" / "mcp-desk",), tmp_path / "caches")


def test_the_folder_written_in_is_offered(layout: Layout) -> None:
    notes = str(layout.home / "notes")
    assert writable_folder(f"{notes}/new.txt", layout) == notes  # a new file: its folder
    assert writable_folder(f"{notes}/old.txt", layout) == notes
    assert writable_folder(notes, layout) == notes  # a folder itself (mkdir in it, say)
    assert writable_folder(f"{notes}/../notes/new.txt", layout) == notes


def test_secret_own_denied_and_broad_places_are_never_offered(layout: Layout) -> None:
    home = layout.home
    settings = SandboxSettings(deny_read=(str(home / "private"),), deny_write=("~/keep",))
    for path in (
        home / ".ssh" / "id_rsa",  # a secret place
        home / ".config" / "mcp-desk" / "servers.json",  # MCP Desk's own folder
        home / ".config" / "new.json",  # its parent would uncover MCP Desk's folder
        home / "private" / "diary.txt",  # denyRead
        home / "keep" / "x.txt",  # denyWrite (written with ~/)
        home / "top.txt",  # the home folder itself
        home / "missing" / "deeper" / "x.txt",  # no such folder
        Path("/etc/passwd"),
        Path("/proc/self/mem"),
        Path("/x.txt"),
    ):
        assert writable_folder(str(path), layout, settings) is None, path
    assert writable_folder("relative/x.txt", layout) is None


def test_a_flood_is_counted_named_once_and_offers_the_latest(layout: Layout) -> None:
    notes: list[str] = []
    denials = Denials(lambda level, text: notes.append(f"{level}: {text}"), lambda: layout)
    line = f"PermissionError: [Errno 13] Permission denied: '{layout.home / 'notes' / 'a.txt'}'"
    for _ in range(500):
        denials.saw_stderr(line)
    folder = str(layout.home / "notes")
    assert denials.offer == Denial("write", folder)
    assert denials.counts[Denial("write", folder)] == 500
    assert notes == [
        f"warning: sandbox refused writing to {folder} (not in allowWrite)",
        f'info: to allow it, add "{folder}" to allowWrite (or use Allow… in the Servers panel)',
    ]
    assert denials.offer.question("files") == f"Allow writing to {folder} for 'files'?"
    assert denials.offer.line("files") == (
        f"server 'files': the sandbox refused writing to {folder}; to allow it, add \"{folder}\" to allowWrite"
    )


def test_a_refused_host_comes_from_the_proxys_line(layout: Layout) -> None:
    denials = Denials(lambda _level, _text: None, lambda: layout)
    assert denials.saw_note("sandbox refused a connection to Api.Example.com (not in allowedDomains)") == Denial(
        "host", "api.example.com"
    )
    denials.reset(None)
    assert denials.offer is None
    # A denied or local host is not the user's to lift here; text that is no host is not offered.
    assert denials.saw_note("sandbox refused a connection to ads.example (in deniedDomains)") is None
    assert denials.saw_note("sandbox refused a connection to 10.0.0.1 (resolves to 10.0.0.1, inside …)") is None
    assert denials.saw_note("sandbox refused a connection to a/b (not in allowedDomains)") is None
    assert denials.offer is None


def test_allowing_adds_exactly_the_one_entry() -> None:
    settings = SandboxSettings(allow_write=("~/notes",), deny_read=("~/private",))
    wider = allowed(settings, Denial("write", "/home/u/drafts"))
    assert wider == SandboxSettings(allow_write=("~/notes", "/home/u/drafts"), deny_read=("~/private",))
    assert allowed(wider, Denial("write", "/home/u/drafts")) == wider
    assert allowed(None, Denial("host", "api.example.com")) == SandboxSettings(allowed_domains=("api.example.com",))


def test_the_proxys_refusals_are_data_as_well_as_words() -> None:
    lines: list[str] = []
    refusals = Refusals(lambda _level, text: lines.append(text))
    for _ in range(3):
        refusals.refused("a.example", NOT_ALLOWED)
    refusals.refused("b.example", "in deniedDomains")
    assert refusals.hosts == {"a.example": 3, "b.example": 1}
    assert [refused_host(line) for line in lines] == [("a.example", NOT_ALLOWED), ("b.example", "in deniedDomains")]
    assert refused_host("sandbox refused 10 connections to a.example so far") is None
