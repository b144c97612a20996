#!/usr/bin/env bash
# Mesa 25's lavapipe from bookworm-backports, unpacked under tools/record/mesa/ (not installed:
# wgpu keeps the system's Mesa). Node's webgpu package (Dawn) asks for a Vulkan feature that
# bookworm's Mesa 22.3 lacks; `wgstress record`'s tests run Node on this one, with
#   VK_DRIVER_FILES=tools/record/mesa/lvp.json LD_LIBRARY_PATH=tools/record/mesa/lib
# Needs apt (Debian) and the network once; no root.
set -euo pipefail
dir="$(cd "$(dirname "$0")" && pwd)/mesa"
if [ -f "$dir/lvp.json" ]; then
    exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb http://deb.debian.org/debian bookworm-backports main" >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update -qq
(cd "$work" && apt-get "${apt[@]}" download -qq \
    mesa-vulkan-drivers/bookworm-backports libdrm2/bookworm-backports libdrm-amdgpu1/bookworm-backports)
rm -rf "$dir.partial"
mkdir -p "$dir.partial/root"
for deb in "$work"/*.deb; do
    dpkg -x "$deb" "$dir.partial/root"
done
lvp="$(find "$dir.partial/root" -name libvulkan_lvp.so | head -1)"
[ -n "$lvp" ] || { echo "mesa.sh: no libvulkan_lvp.so in the packages" >&2; exit 1; }
lib="$(dirname "$lvp")"
ln -s "${lib#"$dir.partial/"}" "$dir.partial/lib"
mv "$dir.partial" "$dir"
cat >"$dir/lvp.json" <<JSON
{
    "file_format_version": "1.0.0",
    "ICD": { "library_path": "$dir/${lib#"$dir.partial/"}/libvulkan_lvp.so", "api_version": "1.4.305" }
}
JSON
echo "mesa.sh: Mesa 25's lavapipe in $dir"
