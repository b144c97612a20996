#!/usr/bin/env bash
# A hold must starve where the model allows it on an idle machine, beside a busy loop on each
# core, and with the whole process and a busy loop on one core: TIMES times each way,
# `progress` on the fixed ticket lock of tests/schedules.rs (two lavapipe threads, 600 runs a
# model, ended at the first starved run), which terminates under OBE and starves under HSA
# and unfair. Prints one line per model and attempt: the verdict, runs, starved runs and the
# holds' coverage, and each attempt's wall clock.
#   bash bench/holds-under-load.sh WGSTRESS [TIMES]
set -euo pipefail
bin="$(realpath "$1")"
times="${2:-3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
spec="$root/tests/fixtures/progress/ticket_lock_two_rounds.toml"
. "$root/bench/load.sh"
trap unload EXIT
summary() {
    python3 -c '
import json, sys
r = json.load(sys.stdin)
for m in r["models"]:
    h = m["holds"]
    print("  %-7s %-10s runs %3d starved %d places %d held %d most points %d" % (
        m["model"], m["verdict"], m["runs"], m["starved_runs"], h["places"],
        h["places_held"], h["most_points"]))'
}
echo "# $(date -u +%FT%TZ) $("$bin" adapters 2>/dev/null | head -1) nproc $(nproc)"
work=$(mktemp -d)
for mode in idle busy one-core; do
    pin=()
    case "$mode" in
    busy) load ;;
    one-core)
        load 0
        pin=(taskset -c 0)
        ;;
    esac
    for i in $(seq "$times"); do
        start=$(date +%s.%N)
        (cd "$work" && LP_NUM_THREADS=2 "${pin[@]}" "$bin" progress "$spec" --json --no-log \
            --runs 600 --until-failures 1 --no-occupancy --models obe,hsa,unfair) \
            >"$work/r.json" 2>"$work/err" && status=0 || status=$?
        end=$(date +%s.%N)
        # Exit 1: a model starves, as two of the three must.
        printf '%s %d: exit %d, %.1f s\n' "$mode" "$i" "$status" "$(echo "$end - $start" | bc)"
        summary <"$work/r.json"
    done
    unload
done
rm -rf "$work"
