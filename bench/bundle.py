"""The desktop bundle's two sizes: installed (the unpacked `dist/mcp-desk/`) and downloaded (the release
archive `dist/mcp-desk-VERSION-linux-ARCH.tar.xz`), with what takes the most room.

Builds them first with `make bundle` when either is missing or `--build` is given (a few minutes).

    python bench/bundle.py [--build]

Goals: installed ≤ 560 MiB, download ≤ 250 MB (`make bundle-test` holds both too). Exits 1 when missed.
"""

from __future__ import annotations

import argparse
import subprocess
from collections import Counter
from pathlib import Path
from typing import Final

from harness import ROOT, Goals

GOAL_INSTALLED_MIB: Final = 560.0
GOAL_DOWNLOAD_MB: Final = 250.0
LARGEST: Final = 8
MIB: Final = 1 << 20


def archives() -> list[Path]:
    return sorted((ROOT / "dist").glob("mcp-desk-*-linux-*.tar.xz"))


def part(path: Path, bundle: Path) -> str:
    """What a file belongs to, as a reader of the list would name it."""
    relative = path.relative_to(bundle).as_posix()
    for marker in ("PySide6/Qt/lib/", "PySide6/Qt/", "PySide6/", "_internal/"):
        if marker in relative:
            rest = relative.split(marker, 1)[1]
            head = rest.split("/", 1)[0]
            return f"{marker.rstrip('/').rsplit('/', 1)[-1]}/{head.split('.so')[0]}"
    return relative.split("/", 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="store_true", help="build the bundle and its archive first")
    args = parser.parse_args()
    bundle = ROOT / "dist" / "mcp-desk"
    if args.build or not bundle.is_dir() or not archives():
        subprocess.run(["make", "bundle"], cwd=ROOT, check=True)
    files = [p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink()]
    installed = float(subprocess.run(["du", "-sm", str(bundle)], capture_output=True, text=True).stdout.split()[0])
    archive = archives()[-1]
    download = archive.stat().st_size / 1e6
    sizes: Counter[str] = Counter()
    for path in files:
        sizes[part(path, bundle)] += path.stat().st_size
    print(f"The desktop bundle: {len(files):,} files; the largest parts:")
    for name, size in sizes.most_common(LARGEST):
        print(f"  {name:<52}{size / MIB:>8.0f} MiB")
    goals = Goals()
    goals.check("installed (dist/mcp-desk, as du counts it)", installed, GOAL_INSTALLED_MIB, "MiB")
    goals.check(f"download ({archive.name})", download, GOAL_DOWNLOAD_MB, "MB")
    goals.exit()


if __name__ == "__main__":
    main()
