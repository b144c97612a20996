#!/usr/bin/env bash
# Device run (issue 33): `wgstress fences` with `--budget 20 --verify 30` (and the default
# `--cost 10`) on every bundled application's nofence variant, large size, and on every buggy
# example, one after the other. One line per target: exit status, wall time, verdict, trials,
# search runs, rounds, the portable patch's changed lines, and the cost of the minimal fix,
# the portable fix and the fixed variant against the original; then where the time went
# (the report's `times`), each round's trials (the sets asked, pass or fail, runs) and each
# placement of the portable fix timed. TARGETS picks some (names or spec paths), CAP a `timeout -s INT`
# per target (240 s), COST the seconds of `--cost` (10: 1 gives more samples of the search in a
# device call); each JSON report is in $out/table/.
set -u
out=${1:-out}; mkdir -p "$out/table"
w=.gpu/bin/wgstress
apps="sdk-red cub-scan cbe-dot cbe-ht global-barrier ct-octree tpo-tm ls-bh"
examples=$(ls examples/*/*.toml | grep -v _fixed.toml)
for target in ${TARGETS:-$apps $examples}; do
  name=$(basename "$target" .toml)
  case "$target" in
    *.toml) args=() ;;
    *) args=(--variant nofence --size large) ;;
  esac
  start=$(date +%s.%N)
  timeout -s INT "${CAP:-240}" $w fences "$target" "${args[@]}" --budget 20 --verify 30 --cost "${COST:-10}" --json --no-log \
    > "$out/table/$name.json" 2>>"$out/table/$name.err"
  code=$?
  end=$(date +%s.%N)
  python3 - "$name" "$code" "$start" "$end" "$out/table/$name.json" <<'PY'
import json, sys
name, code, start, end, path = sys.argv[1:]
wall = float(end) - float(start)
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name:<20} exit {code} wall {wall:6.1f} s no report ({e})"); sys.exit()
cost = {c["of"]: c["percent"] for c in r.get("cost", [])}
fmt = lambda k: f"{cost[k]:+.1f}%" if k in cost else "-"
lines = sum(p.get("changed_lines") or 0 for p in r.get("patches", []))
before = ", ".join(f"{b['strategy']} {b['failures']}/{b['runs']}" for b in r.get("before", []))
verified = ", ".join(f"{v['failures']}/{v['runs']}" for v in r.get("verified", []))
print(f"{name:<20} exit {code} wall {wall:6.1f} s {r.get('verdict')} before [{before}] sites {r.get('sites')} "
      f"trials {r.get('trials')} runs {r.get('search_runs')} rounds {len(r.get('refined') or []) + 1} "
      f"out_of_time {r.get('search_out_of_time')} minimal {len(r.get('minimal') or [])} kept {len(r.get('kept') or [])} "
      f"verified [{verified}] patch lines {lines} cost minimal {fmt('minimal fix')} portable {fmt('portable fix')} "
      f"every {fmt('every site')} fixed {fmt('fixed variant')}")
t = r.get("times")
if t:
    to_verdict = t["confirm"] + t["trials"] + t["verify"]
    print(f"{'':<20} to the verdict {to_verdict:6.1f} s: confirm {t['confirm']:.1f} trials {t['trials']:.1f} "
          f"(runs {t['trial_runs']:.1f}) verify {t['verify']:.1f}; cost {t['cost']:.1f}")
rounds = {}
for a in r.get("asked") or []:
    mark = "pass" if a["passed"] else "fail"
    atomic = "+" + ",".join(a["atomic"]) if a.get("atomic") else ""
    rounds.setdefault(a["round"], []).append(f"{a['sites']}{atomic} {mark} {a['runs']}")
for n, asked in sorted(rounds.items()):
    print(f"{'':<20} round {n} asked: " + "; ".join(asked))
for p in r.get("placements") or []:
    c = p.get("checked")
    check = f" checked {c['failures']}/{c['runs']}" if c else ""
    mark = ("first " if p["first"] else "") + ("chosen" if p["chosen"] else "")
    print(f"{'':<20} placement {p['sites']} {fmt(p['of'])} {mark}{check}")
PY
done
