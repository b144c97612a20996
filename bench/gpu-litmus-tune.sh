#!/usr/bin/env bash
# Device run (issue 5): litmus weak behaviours per second with and without fences, a full
# tune (timed), and the dot product with the tuned profile. Results packed into $1/litmus.tgz.
set -u
out=${1:-out}; mkdir -p "$out/litmus"
. bench/lib.sh
d=$out/litmus
for t in mp sb lb; do
  for f in "" "--fence"; do
    $w litmus $t $f --time 5 --json > "$d/litmus-$t${f:+-fence}.json" 2>>"$out/stderr.log"
    python3 -c "import json; r=json.load(open('$d/litmus-$t${f:+-fence}.json')); c=r['counts']; print('$t', '${f:-nofence}', 'instances', r['instances'], 'weak', c['weak'], 'weak/s', round(r['weak_per_second'],1), 'seconds', round(r['seconds'],2))"
  done
done
start=$(date +%s%N)
timeout 500 $w tune --profile "$d/profile.json" --heat-map "$d/heatmap.svg" 2>>"$out/stderr.log" | tee "$d/tune.txt"
echo "tune wall milliseconds: $(( ($(date +%s%N) - start) / 1000000 ))"
cp "$d/profile.json" wgstress-profile.json
measure "cbe-dot buggy tuned profile" cbe-dot --variant buggy --size large --time 10
measure "sdk-red buggy tuned profile" sdk-red --variant buggy --size large --time 10
rm -f wgstress-profile.json
measure "sdk-red buggy seed defaults" sdk-red --variant buggy --size large --time 10
tar czf "$out/litmus.tgz" -C "$out" litmus
