#!/usr/bin/env sh
# Test the release archive as a user meets it: unpack it, install it with its one line into a fresh
# home, run the installed app's self-test (offscreen), check the menu entry and icons, uninstall, and
# hold both sizes to their budgets. Usage: bundle-test.sh INSTALLED_MIB_BUDGET DOWNLOAD_MB_BUDGET
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
installed_budget=$1
download_budget=$2
archive=$(ls "$root"/dist/mcp-desk-*-linux-*.tar.xz)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
home="$scratch/home"
mkdir -p "$home"

tar -C "$scratch" -xf "$archive"
HOME="$home" XDG_DATA_HOME="$home/.local/share" "$scratch"/mcp-desk-*/install.sh
share="$home/.local/share"
test -f "$share/applications/mcp-desk.desktop"
grep -q "^Exec=$home/.local/opt/mcp-desk/mcp-desk$" "$share/applications/mcp-desk.desktop"
test -f "$share/icons/hicolor/scalable/apps/mcp-desk.svg"
test -f "$share/icons/hicolor/256x256/apps/mcp-desk.png"
HOME="$home" XDG_DATA_HOME="$share" XDG_CONFIG_HOME="$home/.config" QT_QPA_PLATFORM=offscreen \
    "$home/.local/bin/mcp-desk" --self-test

installed=$(du -sm "$home/.local/opt/mcp-desk" | cut -f1)
download=$(( $(wc -c < "$archive") / 1000000 ))
HOME="$home" XDG_DATA_HOME="$share" "$scratch"/mcp-desk-*/install.sh --uninstall
left=$(find "$home/.local/opt" "$home/.local/bin" "$share/applications" "$share/icons" -type f 2>/dev/null | wc -l)
echo "installed: $installed MiB (budget $installed_budget MiB); download $(basename "$archive"): $download MB (budget $download_budget MB); files left after uninstall: $left"
test "$installed" -le "$installed_budget"
test "$download" -le "$download_budget"
test "$left" -eq 0
