#!/usr/bin/env sh
# Install the built bundle for the current user: ~/.local/opt/mcp-desk, a launcher and the icon.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bundle="$here/dist/mcp-desk"
[ -x "$bundle/mcp-desk" ] || { echo "no bundle at $bundle: run 'make bundle' first" >&2; exit 1; }
prefix="${XDG_DATA_HOME:-$HOME/.local/share}"
opt="$HOME/.local/opt/mcp-desk"
rm -rf "$opt" && mkdir -p "$opt" "$HOME/.local/bin" "$prefix/applications" "$prefix/metainfo" \
    "$prefix/icons/hicolor/scalable/apps"
cp -R "$bundle/." "$opt/"
ln -sf "$opt/mcp-desk" "$HOME/.local/bin/mcp-desk"
sed "s|^Exec=mcp-desk|Exec=$opt/mcp-desk|" "$here/packaging/mcp-desk.desktop" > "$prefix/applications/mcp-desk.desktop"
cp "$here/packaging/org.mcpdesk.MCPDesk.metainfo.xml" "$prefix/metainfo/"
cp "$here/icons/mcp-desk.svg" "$prefix/icons/hicolor/scalable/apps/mcp-desk.svg"
for size in 16 24 32 48 64 128 256 512; do
    png="$here/icons/build/mcp-desk-$size.png"
    [ -f "$png" ] && mkdir -p "$prefix/icons/hicolor/${size}x${size}/apps" && \
        cp "$png" "$prefix/icons/hicolor/${size}x${size}/apps/mcp-desk.png"
done
echo "Installed to $opt; run 'mcp-desk' or find MCP Desk in your applications."
