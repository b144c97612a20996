#!/usr/bin/env bash
# Device run (issue 13): every bundled application with default options but the variant and
# size, `--time $SECONDS_EACH` (60). One line per run: exit status, the process's wall time
# against the budget, runs, failures, time to first failure and the shape that exposed it.
# VARIANT=buggy|fixed, APPS="..." to choose. JSON summaries in $out/defaults-$VARIANT.jsonl.
set -u
out=${1:-out}; mkdir -p "$out"
w=.gpu/bin/wgstress
T=${SECONDS_EACH:-60}
variant=${VARIANT:-buggy}
for app in ${APPS:-$($w apps | awk '{print $1}')}; do
  start=$(date +%s.%N)
  json=$($w run $app --variant $variant --size large --time $T --json --no-log 2>>"$out/stderr.log")
  code=$?
  end=$(date +%s.%N)
  echo "$json" | tr -d '\n' >> "$out/defaults-$variant.jsonl"; echo >> "$out/defaults-$variant.jsonl"
  python3 - "$app" "$variant" "$code" "$start" "$end" "$T" "$json" <<'PY'
import json, sys
app, variant, code, start, end, budget, text = sys.argv[1:]
wall = float(end) - float(start)
try:
    d = json.loads(text)
except Exception:
    print(f"{app:<15} {variant:<6} exit {code} wall {wall:6.1f} s ERROR {text[:200]}"); sys.exit()
cal = (d.get("calibration") or {}).get("seconds", 0.0)
ff = d.get("first_failure") or {}
ttff = d.get("time_to_first_failure")
shape = ff.get("replay", "")
top = (d.get("shapes") or [{}])[0]
print(f"{app:<15} {variant:<6} exit {code} wall {wall:6.1f} s (budget {budget} s, calibration {cal:.1f} s, runs {d['wall_seconds']:.1f} s) "
      f"runs {d['runs']:>7} {d['runs_per_second']:>8.1f}/s failures {d['failures']:>6} {d['counts']} "
      f"first {('%.2f s' % ttff) if ttff is not None else '-'} loop limit {d['loop_limit']} "
      f"top shape: {top.get('shape','-')} ({top.get('failures',0)}/{top.get('runs',0)}) first replay: {shape}")
PY
done
