#!/usr/bin/env bash
# Device run (issue 23): every example of examples/ as it ships, raw (the shaders as given) and
# under stress for SECONDS each, then `wgstress fences` on the buggy ones (BUDGET, VERIFY, COST).
# One line per run; JSON in $out/examples/.
set -u
out=${1:-out}; mkdir -p "$out/examples"
w=.gpu/bin/wgstress
T=${SECONDS_EACH:-8}
for spec in examples/*/*.toml; do
  name=$(basename "$spec" .toml)
  for mode in raw stressed; do
    flag=""; [ "$mode" = raw ] && flag="--raw"
    json=$($w run "$spec" $flag --time "$T" --json --no-log 2>>"$out/stderr.log")
    code=$?
    echo "$json" > "$out/examples/$name-$mode.json"
    python3 - "$name" "$mode" "$code" "$json" <<'PY'
import json, sys
name, mode, code, text = sys.argv[1:]
try:
    d = json.loads(text)
except Exception:
    print(f"{name:<22} {mode:<8} exit {code} ERROR {text[:200]}"); sys.exit()
if "error" in d:
    print(f"{name:<22} {mode:<8} exit {code} error: {d['error']}"); sys.exit()
ttff = d.get("time_to_first_failure")
print(f"{name:<22} {mode:<8} exit {code} runs {d['runs']:>7} {d['runs_per_second']:>9.1f}/s failures {d['failures']:>6} "
      f"{d['counts']} first {('%.2f s' % ttff) if ttff is not None else '-'}")
PY
  done
done
for spec in examples/*/*.toml; do
  case "$spec" in *_fixed.toml) continue;; esac
  name=$(basename "$spec" .toml)
  start=$(date +%s.%N)
  $w fences "$spec" --budget "${BUDGET:-15}" --verify "${VERIFY:-20}" --cost "${COST:-5}" --json --no-log \
    -o "$out/examples/$name-fix" > "$out/examples/$name-fences.json" 2>>"$out/stderr.log"
  code=$?
  end=$(date +%s.%N)
  python3 - "$name" "$code" "$start" "$end" "$out/examples/$name-fences.json" <<'PY'
import json, sys
name, code, start, end, path = sys.argv[1:]
wall = float(end) - float(start)
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name:<22} fences   exit {code} wall {wall:6.1f} s no report ({e})"); sys.exit()
before = ", ".join(f"{b['strategy']}: {b['failures']}/{b['runs']}" for b in r.get("before", []))
kept = [f"{k['file'].split('/')[-1]}:{k['line']}:{k['column']}{'' if k.get('needed') else ' (portable)'}" for k in r.get("kept", [])]
b = r.get("bound") or {}
print(f"{name:<22} fences   exit {code} wall {wall:6.1f} s verdict {r.get('verdict')} before [{before}] "
      f"kept {kept} minimal {len(r.get('minimal') or [])} bound {('< 1 in %d' % int(1/b['upper'])) if b.get('upper') else '-'} "
      f"patches {[p['file'].split('/')[-1] for p in r.get('patches', [])]}")
PY
done
