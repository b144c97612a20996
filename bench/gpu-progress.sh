#!/usr/bin/env bash
# Forward progress on the GPU (docs/progress.md): `wgstress progress` on every bundled
# application (fixed variant, large) and every example; the cost of the scheduler's hooks under
# the fair model (runs per second against BASE, a binary from before the scheduler, same
# application, alternating); tpo-tm's time to its first failure, and a correct 1,024-workgroup
# ticket lock, with both binaries; a sample of the progress litmus suite. Usage: bash
# bench/gpu-progress.sh OUT PART (PART: apps, examples, compare, overhead, rawhang or suite; each fits one device
# command). TIME: seconds per model for apps and examples (1).
set -u
out=$1
part=$2
w=${WGSTRESS:-.gpu/bin/wgstress}
base=${BASE:-.gpu/base/wgstress}
mkdir -p "$out"
summary() {
  python3 - "$@" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{label}: no report ({e})"); sys.exit()
if "models" in d:
    rows = [f"{m['model'] if m['occupancy'] is None else 'occ ' + str(m['occupancy'])}={m['verdict']}({m['starved_runs']}/{m['runs']})" for m in d["models"] + d["occupancy"]]
    print(f"{label:<34} {' '.join(rows)} | {d['needs']['meaning'][:60]}")
else:
    c = d["counts"]
    print(f"{label:<34} runs {d['runs']} runs/s {d['runs_per_second']:.1f} failures {d['failures']} {c} first {d['time_to_first_failure']} longest {d.get('longest_passing_loop')} {(d.get('first_failure') or {}).get('detail', '')[:160]}")
PY
}
case $part in
suite)
  # The progress litmus suite: a sample spread over it, the three mappings (docs/progress.md).
  $w progress --suite --sample "${SAMPLE:-400}" --iterations "${ITERATIONS:-5}" --json --no-log \
    > "$out/suite.json" 2> "$out/suite.err"
  echo "suite exit $?"
  python3 - "$out/suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps({k: v for k, v in d.items() if k not in ("tests", "hung")}, indent=1)[:4000])
PY
  ;;
apps)
  for app in cbe-dot cbe-ht sdk-red cub-scan ct-octree tpo-tm ls-bh global-barrier; do
    $w progress "$app" --variant fixed --size large --time "${TIME:-1}" --no-occupancy --json --no-log \
      > "$out/progress-$app.json" 2> "$out/progress-$app.err"
    summary "$app" "$out/progress-$app.json"
  done
  ;;
examples)
  for spec in examples/progress/*/*.toml examples/ticket-lock/ticket_lock_fixed.toml \
    examples/global-barrier/global_barrier_fixed.toml; do
    name=$(basename "$spec" .toml)
    $w progress "$spec" --time "${TIME:-1}" --json --no-log > "$out/progress-$name.json" 2> "$out/progress-$name.err"
    summary "$name" "$out/progress-$name.json"
  done
  ;;
compare)
  for round in 1 2; do
    for bin in base new; do
      b=$w; [ $bin = base ] && b=$base
      for app in cub-scan sdk-red ls-bh; do
        $b run $app --variant fixed --size large --strategy none --time 4 --json --no-log \
          > "$out/overhead-$app-$bin-$round.json" 2>/dev/null
        summary "overhead $app $bin $round" "$out/overhead-$app-$bin-$round.json"
      done
    done
  done
  for bin in base new; do
    b=$w; [ $bin = base ] && b=$base
    $b run tpo-tm --variant buggy --size large --time 20 --json --no-log > "$out/tpo-$bin.json" 2>/dev/null
    summary "tpo-tm buggy $bin" "$out/tpo-$bin.json"
    $b run examples/progress/ticket-lock/ticket_lock_progress.toml --time 10 --json --no-log \
      > "$out/ticket1024-$bin.json" 2>/dev/null
    summary "ticket lock 1024 $bin" "$out/ticket1024-$bin.json"
  done
  $w run tests/fixtures/progress/deadlock.toml --time 3 --json --no-log > "$out/deadlock.json" 2>/dev/null
  summary "deadlock" "$out/deadlock.json"
  $w run examples/progress/global-barrier/global_barrier_plain.toml --raw --runs 1 --timeout 5 \
    --json --no-log > "$out/raw-hang.json" 2> "$out/raw-hang.err"
  echo "raw hang exit $?: $(head -c 600 "$out/raw-hang.err")"
  ;;
overhead)
  # Every bundled application's fixed variant (or APPS), instrumented under `fair` and raw
  # (not with NO_RAW), with both binaries alternating; then ls-bh's log.
  for app in ${APPS:-cbe-dot cbe-ht sdk-red cub-scan ct-octree tpo-tm ls-bh global-barrier}; do
    for bin in base new; do
      b=$w; [ $bin = base ] && b=$base
      $b run $app --variant fixed --size large --strategy none --time 3 --json --no-log \
        > "$out/overhead-$app-$bin.json" 2>/dev/null
      summary "overhead $app $bin" "$out/overhead-$app-$bin.json"
      [ -n "${NO_RAW:-}" ] && continue
      $b run $app --variant fixed --size large --raw --time 2 --json --no-log \
        > "$out/raw-$app-$bin.json" 2>/dev/null
      summary "raw $app $bin" "$out/raw-$app-$bin.json"
    done
  done
  [ -n "${NO_RAW:-}" ] && exit 0
  $w run ls-bh --variant fixed --size large --strategy none --runs 20 --log "$out/ls-bh.jsonl" \
    --json > "$out/ls-bh-log.json" 2>/dev/null
  ;;
rawhang)
  # A raw run that hangs: two workgroups that wait for each other, with no instrumentation.
  # `timeout` kills it if it does not end by itself (wgpu's queue drop waited for the hung
  # submission forever before the device was leaked instead).
  timeout -k 10 60 $w run tests/fixtures/progress/deadlock.toml --raw --runs 1 --timeout 5 --json \
    --no-log > "$out/raw-deadlock.json" 2> "$out/raw-deadlock.err"
  echo "raw deadlock exit $?: $(head -c 800 "$out/raw-deadlock.err")"
  ;;
esac
