#!/usr/bin/env bash
# Hang confirmation on a GPU: correct locks (10,000 runs each) must draw no hang, the deadlock
# fixture must be a hang within seconds, and the ticket-then-flag hand-off must starve under
# unfair and terminate under OBE. Writes OUT/check/ (summaries as JSON, stderr with times) and
# OUT/check.tgz. Usage (on the device machine): bash bench/gpu-hang-confirm.sh [WGSTRESS]
set -u
w=${1:-.gpu/bin/wgstress}
o=$OUT/check
mkdir -p "$o"
"$w" adapters > "$o/adapters.txt" 2>&1
for s in tests/fixtures/progress/spin_lock_16.toml tests/fixtures/progress/spin_lock_64.toml \
    examples/ticket-lock/ticket_lock_fixed.toml tests/fixtures/progress/ticket_lock_256.toml; do
    n=$(basename "$s" .toml)
    /usr/bin/time -f "%e s" timeout 120 "$w" run "$s" --runs 10000 --json --no-log --quiet \
        > "$o/$n.json" 2> "$o/$n.err"
    echo "$n exit $?" >> "$o/exits.txt"
done
for i in 1 2 3; do
    /usr/bin/time -f "%e s" timeout 60 "$w" run tests/fixtures/progress/deadlock.toml --runs 3 \
        --json --no-log --quiet > "$o/deadlock-$i.json" 2> "$o/deadlock-$i.err"
    echo "deadlock-$i exit $?" >> "$o/exits.txt"
done
/usr/bin/time -f "%e s" timeout 200 "$w" progress tests/fixtures/progress/ticket_handoff.toml \
    > "$o/handoff.txt" 2>&1
echo "handoff exit $?" >> "$o/exits.txt"
tar czf "$OUT/check.tgz" -C "$OUT" check
