#!/usr/bin/env bash
# Device run (issue 15): the classic litmus tests' weak outcomes per second in the MP
# harness's layout (direct placement, y in a region of its own) at stride 1 and 4, against
# the old default layout; then every mutant in the stride-1 layout (its mutation score and
# death rates, against the searched environment's in docs/mutants.md). T seconds per test (2).
set -u
out=${1:-out}; mkdir -p "$out/layouts"
. bench/lib.sh
T=${T:-2}
GAP=${GAP:-262144}
declare -A layouts=(
  [direct-s1-g512]="--placement direct --stride 1 --testing-groups 512 --y-gap $GAP"
  [direct-s4-g512]="--placement direct --stride 4 --testing-groups 512 --y-gap $GAP"
  [old-default]=""
)
for test in mp sb lb corr coww cowr corw 2+2w; do
  for name in direct-s1-g512 direct-s4-g512 old-default; do
    f="$out/layouts/$test-$name.json"
    $w litmus $test --time "$T" ${layouts[$name]} --json --no-log > "$f" 2>>"$out/stderr.log"
    python3 -c "import json; r=json.load(open('$f')); c=r['counts']; print('$test'.ljust(6), '$name'.ljust(16), 'instances', str(r['instances']).rjust(12), 'weak', str(c['weak']).rjust(10), 'weak/s', str(round(r['weak_per_second'])).rjust(10), 'disallowed', c['disallowed'])"
  done
done
$w mutants --tests mutants --time "${MUTANT_TIME:-1}" ${layouts[direct-s1-g512]} --json --no-log \
  > "$out/layouts/mutants-direct-s1.json" 2>>"$out/stderr.log"
python3 - "$out/layouts/mutants-direct-s1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]
for t in r["results"]:
    print(f"{t['name']:<30} {t['instances']:>14} killed {t['counts']['target']:>12} rate {t['rate']:>14.1f}/s")
print(f"mutation score {s['killed']}/{s['mutants']}, reproducible {s['reproducible']} at >= {s['ceiling_rate']:.3f}/s, took {r['seconds']:.1f} s")
PY
