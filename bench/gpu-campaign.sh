#!/usr/bin/env bash
# Device run (issue 26), on a host with several GPUs: every adapter listed, the campaign of the
# eight bundled buggy applications (deploy/plans/bundled-buggy.toml: `run` for 20 s each)
# over all GPUs, merged, then the same campaign on the first GPU alone, merged. The merged
# reports (text and JSON) are in $out/; their throughput tables give the runs per second.
set -u
out=${1:-out}; mkdir -p "$out"
w=.gpu/bin/wgstress
plan=deploy/plans/bundled-buggy.toml
$w adapters > "$out/adapters.txt" 2>&1
cat "$out/adapters.txt"
for setup in all one; do
  adapter=all; [ "$setup" = one ] && adapter='#0'
  start=$(date +%s.%N)
  $w campaign "$plan" --adapter "$adapter" --out "$out/$setup" > "$out/$setup-campaign.txt" 2>&1
  code=$?
  end=$(date +%s.%N)
  echo "== campaign --adapter $adapter: exit $code, wall $(python3 -c "print(round($end - $start, 1))") s"
  $w merge "$out/$setup" --html "$out/$setup.html" > "$out/$setup-merge.txt" 2>&1
  $w merge "$out/$setup" --json > "$out/$setup-merge.json" 2>>"$out/$setup-merge.err"
  cat "$out/$setup-merge.txt"
done
