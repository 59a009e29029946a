#!/usr/bin/env sh
# Write the Linux release archive from the built bundle (dist/mcp-desk): what a user downloads.
# Inside, one folder: the bundle, the desktop entry, metainfo and icons, and install.sh, so installing
# is one line: tar xf mcp-desk-VERSION-linux-ARCH.tar.xz && mcp-desk-VERSION-linux-ARCH/install.sh
# Prints the archive's path. xz, because every Linux unpacks it without extra tools; at level 1, which packs
# within 4% of level 3 (measured on the bundle's largest library) in a third of its time.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$root/desktop_app/__init__.py")
name="mcp-desk-$version-linux-$(uname -m)"
work="$root/build/release"
stage="$work/$name"
[ -x "$root/dist/mcp-desk/mcp-desk" ] || { echo "no bundle in dist/mcp-desk: run make bundle" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$stage/share/applications" "$stage/share/metainfo" \
    "$stage/share/icons/hicolor/scalable/apps"
cp -R "$root/dist/mcp-desk" "$stage/mcp-desk"
cp "$root/packaging/install-linux.sh" "$stage/install.sh"
cp "$root/packaging/mcp-desk.desktop" "$stage/share/applications/"
cp "$root/packaging/org.mcpdesk.MCPDesk.metainfo.xml" "$stage/share/metainfo/"
cp "$root/icons/mcp-desk.svg" "$stage/share/icons/hicolor/scalable/apps/"
for png in "$root"/icons/build/mcp-desk-*.png; do
    size=$(basename "$png" .png | sed 's/mcp-desk-//')
    mkdir -p "$stage/share/icons/hicolor/${size}x${size}/apps"
    cp "$png" "$stage/share/icons/hicolor/${size}x${size}/apps/mcp-desk.png"
done
archive="$root/dist/$name.tar.xz"
tar -C "$work" -cf - "$name" | xz -T0 -1 > "$archive.part"
mv "$archive.part" "$archive"
rm -rf "$work"
echo "$archive"
