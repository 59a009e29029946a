#!/usr/bin/env sh
# Install MCP Desk for the current user from the unpacked release archive this script ships in:
# the bundle to ~/.local/opt/mcp-desk, a `mcp-desk` launcher in ~/.local/bin, the menu entry, metainfo
# and icons. `install.sh --uninstall` removes exactly those again (the user's servers and chats stay).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
share="${XDG_DATA_HOME:-$HOME/.local/share}"
opt="$HOME/.local/opt/mcp-desk"
launcher="$HOME/.local/bin/mcp-desk"
sizes="16 24 32 48 64 128 256 512"

if [ "${1:-}" = "--uninstall" ]; then
    rm -rf "$opt"
    [ -L "$launcher" ] && rm -f "$launcher"
    rm -f "$share/applications/mcp-desk.desktop" "$share/metainfo/org.mcpdesk.MCPDesk.metainfo.xml" \
        "$share/icons/hicolor/scalable/apps/mcp-desk.svg"
    for size in $sizes; do rm -f "$share/icons/hicolor/${size}x${size}/apps/mcp-desk.png"; done
    echo "MCP Desk removed; your servers and conversations are kept."
    exit 0
fi

[ -x "$here/mcp-desk/mcp-desk" ] || { echo "no bundle next to this script (expected $here/mcp-desk/)" >&2; exit 1; }
rm -rf "$opt" && mkdir -p "$opt" "$(dirname "$launcher")" "$share/applications" "$share/metainfo"
cp -R "$here/mcp-desk/." "$opt/"
ln -sf "$opt/mcp-desk" "$launcher"
sed "s|^Exec=mcp-desk|Exec=$opt/mcp-desk|" "$here/share/applications/mcp-desk.desktop" \
    > "$share/applications/mcp-desk.desktop"
cp "$here/share/metainfo/org.mcpdesk.MCPDesk.metainfo.xml" "$share/metainfo/"
cp -R "$here/share/icons/." "$share/icons/"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$share/applications" || true
echo "Installed to $opt; run 'mcp-desk' or find MCP Desk in your applications."
