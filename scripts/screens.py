"""Make the screenshots of every main screen, light and dark, at 1280x800 and 1920x1080, into docs/screens/.

The real app runs: its window (`run_window`), the demo server over stdio, a scripted model on 127.0.0.1
(`tests/llm_server.py`), a registry on 127.0.0.1 for the gallery, in a throwaway home. Each theme and
size runs in a process of its own that starts in that theme, as a user's app does. Dialogs and the ledger
are drawn centred over the window. Also writes the README's pictures at 1480x920, light:
docs/screenshot.png (the conversation) and docs/apps.png (the notes board app).

    python scripts/screens.py                        # every screen, both themes, both sizes
    python scripts/screens.py --only ledger --theme dark --size 1920x1080 --out FOLDER

Runs offscreen (no DISPLAY; each process gets a screen of its picture's size) or under Xvfb (DISPLAY
set; its screen must hold 1920x1080). Both draw MCP App views. The scenes are in `screens_scenes.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCREENS = (
    "main-empty",
    "approval",
    "conversation",
    "ledger",
    "servers-tools",
    "settings",
    "gallery",
    "question",
    "app-view",
)
SIZES = ((1280, 800), (1920, 1080))
THEMES = ("light", "dark")
README_SIZE = (1480, 920)
"""The first start's size on a large screen: the README's pictures."""
README_PICTURES = {"conversation": "screenshot.png", "app-view": "apps.png"}
DEFAULT_OUT = ROOT / "docs" / "screens"


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.partition("x")
    try:
        return int(width), int(height)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--only", action="append", choices=SCREENS, metavar="NAME", help=f"one screen, repeatable: {', '.join(SCREENS)}"
    )
    parser.add_argument("--theme", choices=THEMES, help="one theme (default: both)")
    parser.add_argument("--size", type=_size, action="append", metavar="WxH", help="a size (repeatable)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the screens' folder (default docs/screens)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # one theme at one size
    parser.add_argument("--readme", type=Path, help=argparse.SUPPRESS)  # the README's pictures, into this folder
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    screens = tuple(args.only or SCREENS)
    if args.child:
        return _child(args, screens)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    runs = [
        ["--theme", theme, "--size", f"{width}x{height}"]
        for theme in ([args.theme] if args.theme else THEMES)
        for width, height in args.size or SIZES
    ]
    pictures = [name for name in screens if name in README_PICTURES]
    if args.theme in (None, "light") and args.size is None and pictures:
        readme = ROOT / "docs" if args.out == DEFAULT_OUT else args.out
        size = "x".join(map(str, README_SIZE))
        runs.append(["--theme", "light", "--size", size, "--readme", str(readme), *(f"--only={p}" for p in pictures)])
    only = [f"--only={name}" for name in screens] if args.only else []
    # One process per theme and size: each starts in its theme on a screen of that size, as a user's app does.
    for run in runs:
        extra = [] if "--readme" in run else only
        code = subprocess.call([sys.executable, __file__, "--child", "--out", str(args.out), *run, *extra])
        if code:
            return code
    pngs = sorted(args.out.glob("*.png"))
    total = sum(p.stat().st_size for p in pngs)
    print(f"{len(pngs)} pictures in {args.out}, {total / 1e6:.1f} MB; {time.monotonic() - started:.0f} s")
    return 0


def _child(args: argparse.Namespace, screens: tuple[str, ...]) -> int:
    [(width, height)] = args.size
    home = Path(tempfile.mkdtemp(prefix="mcp-desk-screens-"))
    for name in ("config", "data", "cache"):
        os.environ[f"XDG_{name.upper()}_HOME"] = str(home / name)
    os.environ.setdefault("OPENAI_API_KEY", "sk-scripted")
    if not os.environ.get("DISPLAY"):  # offscreen, on a screen of the picture's size (dialogs fit themselves to it)
        screen = {"name": "shot", "x": 0, "y": 0, "width": width, "height": height, "logicalDpi": 96, "dpr": 1}
        config = home / "offscreen.json"
        config.write_text(json.dumps({"screens": [screen]}))
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(Path(__file__).parent))
    from screens_scenes import play

    if args.readme is not None:
        shots = {name: args.readme / README_PICTURES[name] for name in screens}
    else:
        shots = {name: args.out / f"{name}-{args.theme}-{width}x{height}.png" for name in screens}
    try:
        play(shots, args.theme, (width, height))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
