#!/usr/bin/env bash
# Device run (issue 5): MP/SB/LB weak behaviours per second, fenced and not, without and with
# stress workgroups; a full tune (timed); sdk-red with the tuned profile and with the defaults.
set -u
out=${1:-out}; mkdir -p "$out/litmus"
. bench/lib.sh
d=$out/litmus
litmus() {
  local label=$1; shift
  $w litmus "$@" --json > "$d/$label.json" 2>>"$out/stderr.log"
  python3 -c "import json; r=json.load(open('$d/$label.json')); c=r['counts']; print('$label'.ljust(28), 'instances', r['instances'], 'weak', c['weak'], 'weak/s', round(r['weak_per_second'],1), 'in', round(r['seconds'],2), 's')"
}
STRESS="--stress-groups 128 --distance 64 --stride 256 --stress-offset 128"
for t in mp sb lb; do
  litmus "$t-plain" $t --time 3
  litmus "$t-plain-fence" $t --time 3 --fence
  litmus "$t-stress" $t --time 5 $STRESS
  litmus "$t-stress-fence" $t --time 5 $STRESS --fence
done
start=$(date +%s%N)
timeout 550 $w tune --profile "$d/profile.json" --heat-map "$d/heatmap.svg" 2>>"$out/stderr.log" | tee "$d/tune.txt"
echo "tune wall milliseconds: $(( ($(date +%s%N) - start) / 1000000 ))"
cp "$d/profile.json" wgstress-profile.json
measure "sdk-red buggy tuned profile" sdk-red --variant buggy --size large --time 10
measure "cub-scan buggy tuned profile" cub-scan --variant buggy --size large --time 10
rm -f wgstress-profile.json
tar czf "$out/litmus.tgz" -C "$out" litmus
