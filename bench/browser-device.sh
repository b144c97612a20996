#!/usr/bin/env bash
# Runs per second of three bundled applications' fixed small variants in the browser device
# (headless Chromium on SwiftShader) against wgpu natively on the same driver: Debian's
# chromium package ships SwiftShader's Vulkan driver, which wgpu opens with VK_DRIVER_FILES,
# so the ratio measures the browser device, not the driver.
# Usage: bench/browser-device.sh [WGSTRESS] [RUNS]
set -euo pipefail
bin=${1:-target/release/wgstress}
runs=${2:-300}
icd=/usr/lib/chromium/vk_swiftshader_icd.json
[ -f "$icd" ] || { echo "no $icd: apt-get install chromium" >&2; exit 1; }
rate() {
    python3 -c "import json,sys; print(round(json.load(sys.stdin)['runs_per_second'], 1))"
}
printf '%-10s %12s %12s %6s\n' app native/s browser/s ratio
for app in cbe-dot sdk-red cub-scan; do
    common=(run "$app" --variant fixed --size small --runs "$runs" --seed 1 --json --no-log --quiet)
    native=$(VK_DRIVER_FILES=$icd "$bin" "${common[@]}" --backend vulkan 2>/dev/null | rate)
    browser=$("$bin" "${common[@]}" --browser 2>/dev/null | rate)
    ratio=$(python3 -c "print(f'{$browser/$native:.2f}')")
    printf '%-10s %12s %12s %6s\n' "$app" "$native" "$browser" "$ratio"
done
