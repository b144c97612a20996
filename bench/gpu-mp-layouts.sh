#!/usr/bin/env bash
# Device run (issue 15): MP weak outcomes per second over layouts the minimal harness differs
# in: placement (direct is the harness's: x of instance k at k x stride, y at the same offset
# in a region of its own), testing groups, stride, workgroup shuffle and iterations per
# submission (each submission draws new permutations). MP_TIME seconds each (3).
set -u
out=${1:-out}; mkdir -p "$out/mp"
. bench/lib.sh
T=${MP_TIME:-3}
GAP=${GAP:-262144}
mp() {
  local label=$1; shift
  $w litmus mp --time "$T" --y-gap $GAP "$@" --json > "$out/mp/$label.json" 2>>"$out/stderr.log"
  python3 -c "import json; r=json.load(open('$out/mp/$label.json')); c=r['counts']; print('$label'.ljust(34), 'instances', str(r['instances']).rjust(12), 'weak', str(c['weak']).rjust(10), 'weak/s', str(round(r['weak_per_second'])).rjust(9), 'weak %', round(100*c['weak']/max(1,r['instances']),3), 'instances/s', round(r['instances']/r['seconds']/1e6), 'M')"
}
for g in 512 1024 2048; do
  for pl in direct permuted; do
    for s in 32 1; do
      mp "$pl-s$s-g$g" --placement $pl --stride $s --testing-groups $g --batch 100
    done
  done
done
mp direct-s32-g512-noshuffle --placement direct --stride 32 --testing-groups 512 --no-shuffle --batch 100
mp direct-s32-g512-batch1 --placement direct --stride 32 --testing-groups 512 --batch 1
mp direct-s32-g512-batch10 --placement direct --stride 32 --testing-groups 512 --batch 10
mp direct-s64-g512 --placement direct --stride 64 --testing-groups 512 --batch 100
mp direct-s8-g512 --placement direct --stride 8 --testing-groups 512 --batch 100
mp y-permuted-s32-g1024 --placement y-permuted --stride 32 --testing-groups 1024 --batch 100
