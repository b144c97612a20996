#!/usr/bin/env bash
# Device run (issue 11): `wgstress fences` on each bundled application's nofence variant (the
# buggy variant with its `if FENCES` blocks cut out), large size. One line per app: exit
# status, wall time, verdict, sites kept against the candidate sites, the runs before and in
# the verification. APPS, BUDGET (confirm, s), VERIFY (s) and CAP (s, a `timeout` per app).
# Each app's JSON report and patched shader are in $out/fences/.
set -u
out=${1:-out}; mkdir -p "$out/fences"
. bench/lib.sh
for app in ${APPS:-cub-scan cbe-dot sdk-red ct-octree}; do
  start=$(date +%s.%N)
  timeout -s INT "${CAP:-240}" $w fences $app --variant nofence --size large --budget "${BUDGET:-20}" \
    --verify "${VERIFY:-30}" --json --no-log -o "$out/fences/$app.wgsl" \
    > "$out/fences/$app.json" 2>>"$out/stderr.log"
  code=$?
  end=$(date +%s.%N)
  python3 - "$app" "$code" "$start" "$end" "$out/fences/$app.json" <<'PY'
import json, sys
app, code, start, end, path = sys.argv[1:]
wall = float(end) - float(start)
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{app:<15} exit {code} wall {wall:6.1f} s no report ({e})"); sys.exit()
def runs(xs):
    return ", ".join(f"{x.get('strategy','?')}: {x.get('failures','?')}/{x.get('runs','?')}" for x in (xs or []))
kept = [f"{k['line']}:{k['column']} {k['side']}" for k in r.get("kept", [])]
a = r.get("all_sites") or {}
print(f"{app:<15} exit {code} wall {wall:6.1f} s verdict {r.get('verdict')} fix {r.get('fix')} "
      f"kept {len(kept)} of {r.get('sites')} sites {kept} before [{runs(r.get('before'))}] "
      f"all sites {a.get('failures','-')}/{a.get('runs','-')} trials {r.get('trials')} search runs {r.get('search_runs')} "
      f"rounds {len(r.get('refined') or [])+1} runs/trial {r.get('runs_per_trial')} verified [{runs(r.get('verified'))}]")
PY
done
