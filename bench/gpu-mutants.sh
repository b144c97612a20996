#!/usr/bin/env bash
# Device run (MC Mutants): (a) MP weak outcomes per second in the split x/y layout at 256, 512
# and 1024 testing workgroups, and in the old default layout for contrast; (b) the environment
# search; (c) every mutant in the best environment found; (d) every conformance test there.
# Usage: bench/gpu-mutants.sh OUT_DIR. About 7 minutes with the defaults below; every budget
# is a variable, and SECONDS_SCALE multiplies them all (e.g. SECONDS_SCALE=0.02 on lavapipe).
# (e), optional (TUNE_BUDGET=60 adds about 2 minutes): tune with its defaults and in the best
# environment, the second saying how the profile changed.
# WGSTRESS names another binary (e.g. target/debug/wgstress off the device).
set -u
out=${1:-out}; mkdir -p "$out/mutants"
. bench/lib.sh
w=${WGSTRESS:-$w}
d=$out/mutants
scale=${SECONDS_SCALE:-1}
MP_TIME=${MP_TIME:-7}                # (a) seconds per MP run (8 runs)
SEARCH_BUDGET=${SEARCH_BUDGET:-210}  # (b) seconds of environment search
SEARCH_TIME=${SEARCH_TIME:-0.1}      # (b) seconds per mutant per environment
SEARCH_GROUPS=${SEARCH_GROUPS:-256,512,1024}
MUTANT_TIME=${MUTANT_TIME:-2}        # (c) seconds per mutant (32 mutants)
CONF_TIME=${CONF_TIME:-3}            # (d) seconds per conformance test (20 tests)
REPRO=${REPRO:-0.99999}              # reproducibility target of the score and the search
BUDGET=${BUDGET:-64}                 # per-test budget (s) the reproducibility score is for
TUNE_BUDGET=${TUNE_BUDGET:-0}        # (e) seconds per tune, default and in the env; 0 skips
GAP=${GAP:-262144}                   # words from the end of the x region to y's (1 MiB)
exec 3>&1  # timings go to the script's stdout even when a command's output is redirected
s() { python3 -c "print(max(0.001, $1 * $scale))"; }
# timed LABEL CMD...: runs CMD, prints its wall time.
timed() {
  local label=$1; shift
  local start=$(date +%s%N)
  "$@"
  local rc=$?
  echo "$label: rc $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms wall" >&3
}
mp() {
  local label=$1; shift
  $w litmus mp --time "$(s "$MP_TIME")" --batch 100 "$@" --json > "$d/mp-$label.json" 2>>"$out/stderr.log"
  python3 -c "import json; r=json.load(open('$d/mp-$label.json')); c=r['counts']; print('mp $label'.ljust(30), 'instances', r['instances'], 'weak', c['weak'], 'weak/s', round(r['weak_per_second']), 'weak %', round(100*c['weak']/max(1,r['instances']),3), 'in', round(r['seconds'],2), 's')"
}
echo "== (a) MP weak outcomes per second"
for g in 256 512 1024; do
  timed "mp split stride 32, $g groups" mp "split-s32-g$g" --testing-groups $g --stride 32 --y-gap $GAP
done
timed "mp split stride 1, 512 groups" mp "split-s1-g512" --testing-groups 512 --stride 1 --y-gap $GAP
timed "mp split stride 32 y-permuted, 512 groups" mp "split-s32-ypermuted-g512" --testing-groups 512 --stride 32 --y-gap $GAP --placement y-permuted
timed "mp split stride 32 scattered, 512 groups" mp "split-s32-scattered-g512" --testing-groups 512 --stride 32 --y-gap $GAP --placement scattered
timed "mp old default (256 groups, x..y 32 words)" mp "old-default"
timed "mp old default, 512 groups" mp "old-default-g512" --testing-groups 512
echo "== (b) environment search"
timed "search" $w mutants --search "$(s "$SEARCH_BUDGET")" --search-time "$(s "$SEARCH_TIME")" \
  --search-groups "$SEARCH_GROUPS" --reproducibility $REPRO --budget $BUDGET \
  --write-env "$d/env.json" 2> "$d/search.log" | tee "$d/search.txt"
tail -3 "$d/search.log"
# Should the search fail, (c) and (d) still run, in the split layout of (a).
envopt="--env $d/env.json"
[ -f "$d/env.json" ] || { echo "no env.json: (c) and (d) use the split layout"; envopt="--testing-groups 512 --stride 32 --y-gap $GAP"; }
echo "== (c) mutants in the best environment"
timed "mutants" $w mutants $envopt --tests mutants --time "$(s "$MUTANT_TIME")" \
  --reproducibility $REPRO --budget $BUDGET --json > "$d/mutants.json" 2>> "$out/stderr.log"
python3 - "$d/mutants.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]
for t in r["results"]:
    print(f"{t['name']:<30} {t['instances']:>14} killed {t['counts']['target']:>12} rate {t['rate']:>14.1f}/s")
print(f"mutation score {s['killed']}/{s['mutants']}, reproducible {s['reproducible']} at >= {s['ceiling_rate']:.3f}/s, took {r['seconds']:.1f} s")
PY
echo "== (d) conformance tests in the best environment"
timed "conformance" $w mutants $envopt --tests conformance --time "$(s "$CONF_TIME")" \
  --json > "$d/conformance.json" 2>> "$out/stderr.log"
python3 - "$d/conformance.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]
for t in r["results"]:
    v = "; ".join(f"{x['outcome']} x{x['count']} ({'incoherent' if x['incoherent'] else 'rel/acq'})" for x in t["violations"])
    print(f"{t['name']:<30} {t['instances']:>14} disallowed {t['counts']['disallowed']:>10} {v}")
print("coherence violations:", s["incoherent"] or "none", "| release/acquire only:", s["relacq_only"] or "none", f"| took {r['seconds']:.1f} s")
PY
if [ "$TUNE_BUDGET" != 0 ]; then
  echo "== (e) tune with its defaults, then in the best environment"
  timed "tune default" $w tune --budget "$(s "$TUNE_BUDGET")" --profile "$d/profile.json" \
    --heat-map "$d/heatmap-default.svg" 2>> "$out/stderr.log" | tee "$d/tune-default.txt"
  cp "$d/profile.json" "$d/profile-default.json"
  timed "tune in env" $w tune --budget "$(s "$TUNE_BUDGET")" --env "$d/env.json" --profile "$d/profile.json" \
    --heat-map "$d/heatmap-env.svg" 2>> "$out/stderr.log" | tee "$d/tune-env.txt"
fi
cp "$d/env.json" "$out/env.json" 2>/dev/null
tar czf "$out/mutants.tgz" -C "$out" mutants
