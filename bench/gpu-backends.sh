#!/usr/bin/env bash
# Vulkan against GL on one GPU: the adapters each backend finds, then every bundled
# application's fixed variant at a small and a large size, TIME seconds each (8 by default),
# under each backend, as JSON summaries under OUT/backends/ and one line each in
# OUT/backends/table.txt (exit, runs, failures, runs per second). Usage (on the device
# machine): bash bench/gpu-backends.sh [WGSTRESS]
set -u
w=${1:-.gpu/bin/wgstress}
t=${TIME:-8}
o=$OUT/backends
mkdir -p "$o"
"$w" adapters > "$o/adapters.txt" 2>&1
for app in $("$w" apps | awk '{print $1}'); do
    for size in small large; do
        for backend in vulkan gl; do
            f="$o/$app-$size-$backend"
            timeout $((t * 6 + 60)) "$w" run "$app" --variant fixed --size "$size" \
                --backend "$backend" --time "$t" --json --no-log --quiet > "$f.json" 2> "$f.err"
            code=$?
            line=$(python3 -c '
import json, sys
try:
    s = json.load(open(sys.argv[1]))
    print("runs %d failures %d %.1f runs/s %s" % (s["runs"], s["failures"], s["runs_per_second"], s["adapter"]))
except Exception as e:
    print("no summary:", open(sys.argv[2]).read().strip().splitlines()[-1:] )
' "$f.json" "$f.err")
            echo "$app $size $backend exit $code $line" >> "$o/table.txt"
        done
    done
done
tar czf "$OUT/backends.tgz" -C "$OUT" backends
