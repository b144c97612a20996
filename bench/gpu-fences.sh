#!/usr/bin/env bash
# Device run (issues 11, 21, 22): `wgstress fences` on each bundled application's nofence variant
# (the buggy variant with its `if FENCES` blocks cut out), large size. One line per app: exit
# status, wall time, verdict, the minimal set and the portable fix suggested against the
# candidate sites, the patch's changed lines, the verification and what it bounds, and the cost
# of each fix against the original. APPS, BUDGET (confirm, s), VERIFY (s), COST (s) and CAP (s,
# a `timeout` per app). Each app's JSON report and patched shader are in $out/fences/.
set -u
out=${1:-out}; mkdir -p "$out/fences"
. bench/lib.sh
for app in ${APPS:-cub-scan cbe-dot sdk-red ct-octree}; do
  start=$(date +%s.%N)
  timeout -s INT "${CAP:-240}" $w fences $app --variant nofence --size large --budget "${BUDGET:-20}" \
    --verify "${VERIFY:-30}" --cost "${COST:-10}" --json --no-log -o "$out/fences/$app.wgsl" \
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
kept = [f"{k['line']}:{k['column']} {k['side']}{'' if k.get('needed') else ' (portable)'}" for k in r.get("kept", [])]
a = r.get("all_sites") or {}
b = r.get("bound") or {}
bound = f"< 1 in {int(1 / b['upper'])}" if b.get("upper") else "-"
patches = "; ".join(f"{p['file'].split('/')[-1]} {p['kind']} {p.get('changed_lines', '-')} lines" for p in r.get("patches", []))
cost = ", ".join(f"{c['of']} {c['seconds_per_run']*1e6:.1f} us ({c['percent']:+.1f}%)" for c in r.get("cost", []))
print(f"{app:<15} exit {code} wall {wall:6.1f} s verdict {r.get('verdict')} fix {(r.get('fix') or {}).get('kind')} "
      f"minimal {len(r.get('minimal') or [])} suggested {len(kept)} ({r.get('choice')}) of {r.get('sites')} sites {kept} "
      f"before [{runs(r.get('before'))}] all sites {a.get('failures','-')}/{a.get('runs','-')} "
      f"trials {r.get('trials')} search runs {r.get('search_runs')} rounds {len(r.get('refined') or [])+1} "
      f"runs/trial {r.get('runs_per_trial')} verified [{runs(r.get('verified'))}] bound {bound} "
      f"patch [{patches}] cost [{cost}] {r.get('cost_error') or ''}")
PY
done
