#!/usr/bin/env bash
# The recorded spec of examples/record/node/scan.mjs (a one-pass look-back scan, 2^24 words
# by default) runs with run's default options on lavapipe: records it with Node's Dawn on
# Mesa 25's lavapipe (tools/record/mesa.sh), then runs it RUNS times (5 by default) with
# nothing but --runs, on one llvmpipe thread and then on every thread. Prints the
# calibration note, the summary's runs, outcomes and abort, and each run's wall clock.
#   bash bench/recorded-scan.sh WGSTRESS [WORDS] [RUNS]
set -euo pipefail
bin="$(realpath "$1")"
words="${2:-16777216}"
runs="${3:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mesa="$root/tools/record/mesa"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root"/examples/record/node/* "$work"
ln -s "$root/tools/tint/node_modules" "$work/node_modules"
echo "# $(date -u +%FT%TZ) $("$bin" adapters 2>/dev/null | head -1) nproc $(nproc) words $words"
(cd "$work" && VK_DRIVER_FILES="$mesa/lvp.json" LD_LIBRARY_PATH="$mesa/lib" LP_NUM_THREADS=1 \
    "$bin" record --out scan -- node scan.mjs --words "$words" 2>&1 | tail -1)
for threads in 1 "$(nproc)"; do
    start=$(date +%s.%N)
    set +e
    (cd "$work/scan" && LP_NUM_THREADS=$threads "$bin" run spec.toml --runs "$runs" --no-log 2>&1) |
        grep -E "calibrated|^(runs|outcomes|aborted) "
    set -e
    echo "  LP_NUM_THREADS=$threads: $(echo "$(date +%s.%N) - $start" | bc) s"
done
