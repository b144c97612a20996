#!/usr/bin/env bash
# Correct locks must never be called a hang, on an idle machine or with a busy loop on each
# core: RUNS runs of each (10,000 by default) under systematic stress, once each way, and the
# deadlock fixture's time to its first hang. Prints one line per (spec, load): the exit status,
# runs, hangs, runs cut by the driver (exit 2 names the loop), slow waits and runs per second.
#   bash bench/slow-waits.sh WGSTRESS [RUNS]
set -euo pipefail
bin="$1"
runs="${2:-10000}"
root="$(cd "$(dirname "$0")/.." && pwd)"
specs=(
    tests/fixtures/progress/spin_lock_16.toml
    tests/fixtures/progress/spin_lock_64.toml
    examples/ticket-lock/ticket_lock_fixed.toml
    tests/fixtures/progress/ticket_lock_256.toml
)
. "$root/bench/load.sh"
trap unload EXIT
summary() {
    python3 -c '
import json, sys
s = json.load(sys.stdin)
c = s["counts"]
print("runs %d hang %d watchdog %d failures %d slow-waits %d %.1f runs/s aborted %s" % (
    s["runs"], c["hang"], c["watchdog"], s["failures"], s.get("slow_waits", 0),
    s["runs_per_second"], s["aborted"] or "-"))'
}
echo "# $(date -u +%FT%TZ) $("$bin" adapters 2>/dev/null | head -1) nproc $(nproc)"
for mode in idle busy; do
    [ "$mode" = busy ] && load
    for spec in "${specs[@]}"; do
        set +e
        out="$("$bin" run "$root/$spec" --runs "$runs" --json --no-log --quiet)"
        code=$?
        set -e
        echo "$mode $spec exit $code $(echo "$out" | summary)"
    done
    first="$("$bin" run "$root/tests/fixtures/progress/deadlock.toml" --runs 3 --json --no-log --quiet | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_to_first_failure"])' || true)"
    echo "$mode deadlock first hang after $first s"
    unload
done
