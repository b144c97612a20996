#!/usr/bin/env bash
# Device run (issue 30, item 6): every example of examples/progress/ raw and under stress for
# T seconds each (default 3), then the ticket lock's waits with the watchdog's limit out of
# reach, with and without stress, and with today's learned limit. One line per run
# (bench/results/h100/progress-examples.txt); JSON in $out/.
# Usage: WGSTRESS=path/to/wgstress T=3 bash bench/gpu-progress-examples.sh [OUT_DIR]
set -u
cd "$(dirname "$0")/.."
w=${WGSTRESS:-target/release/wgstress}
out=${1:-out/progress}; mkdir -p "$out"
T=${T:-3}
"$w" adapters
line() { python3 - "$@" <<'PY'
import json, sys
name, mode, code, path = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception:
    print(f"{name:<34} {mode:<10} exit {code} unreadable: {open(path).read()[:200]}"); sys.exit()
if "error" in d:
    print(f"{name:<34} {mode:<10} exit {code} error: {d['error']}"); sys.exit()
ff = d.get("first_failure") or {}
print(f"{name:<34} {mode:<10} exit {code} runs {d['runs']:>7} {d['runs_per_second']:>8.1f}/s fail {d['failures']:>6} "
      f"{ {k: v for k, v in d['counts'].items() if v} } longest {d.get('longest_passing_loop')} limit {d.get('loop_limit')} "
      f"{(ff.get('detail') or '')[:160]}")
PY
}
run() { # NAME MODE ARGS...
  local name=$1 mode=$2; shift 2
  timeout 60 "$w" run "$@" --json --no-log > "$out/$name-$mode.json" 2>>"$out/stderr.log"
  line "$name" "$mode" $? "$out/$name-$mode.json"
}
for spec in examples/progress/*/*.toml; do
  name=$(basename "$spec" .toml)
  run "$name" raw "$spec" --raw --time "$T"
  run "$name" stressed "$spec" --time "$T"
done
lock=examples/progress/ticket-lock/ticket_lock_progress.toml
run ticket_lock_progress no-limit "$lock" --watchdog-limit 2000000000 --time 10
run ticket_lock_progress none-no-limit "$lock" --strategy none --watchdog-limit 2000000000 --time 5
run ticket_lock_progress default "$lock" --time 10
