#!/usr/bin/env bash
# The scheduler emulation against the termination oracle on the whole progress suite
# (runtime/tests/emulator.rs, docs/progress.md), in shards run side by side on a machine of
# many cores. The test binary is built beforehand with
#   cargo test --release -p wgstress-runtime --test emulator --no-run
# and opens the adapter wgpu prefers: set VK_DRIVER_FILES to pick the GPU's or lavapipe's ICD.
#
# Usage: bash bench/emulator-shards.sh BINARY OUT SHARDS FIRST COUNT [THREADS]
#   runs shards FIRST..FIRST+COUNT-1 of SHARDS at once, each a process of its own, and writes
#   OUT/shardI.log and OUT/summary.txt (the totals and every disagreement). THREADS (2 or 3)
#   takes the tests of that many threads only, with as many llvmpipe threads; without it each
#   shard runs both, as the test does.
set -u
bin=$1
out=$2
shards=$3
first=$4
count=$5
threads=${6:-}
mkdir -p "$out"
start=$(date +%s)
for i in $(seq "$first" $((first + count - 1))); do
  (
    if [ -n "$threads" ]; then
      export WGSTRESS_EMULATOR_THREADS=$threads LP_NUM_THREADS=$threads
    fi
    WGSTRESS_EMULATOR_EVERY=1 WGSTRESS_EMULATOR_SHARD=$i/$shards \
      "$bin" --exact the_scheduler_starves_a_test_where_and_only_where_the_oracle_says_it_may \
      --nocapture >"$out/shard$i.log" 2>&1
    echo "exit $? after $(($(date +%s) - start)) s" >>"$out/shard$i.log"
  ) &
done
wait
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, re, sys
out = sys.argv[1]
# The test's summary line, its numbers in order (runtime/tests/emulator.rs).
names = ["tests", "threads", "shard", "shards", "runs", "seconds", "guaranteed pairs",
         "flakes", "starving holds at a start", "starving holds after steps",
         "scripted pairs", "second batches", "not fitting a script", "hangs with nobody held"]
summed = {"tests", "runs", "guaranteed pairs", "flakes", "starving holds at a start",
          "starving holds after steps", "scripted pairs", "second batches",
          "not fitting a script", "hangs with nobody held"}
totals = {name: 0 for name in names if name in summed}
disagreements, flakes, exits = set(), set(), []
for path in sorted(glob.glob(f"{out}/shard*.log")):
    for line in open(path, errors="replace"):
        if " tests of " in line and "pairs the oracle guarantees" in line:
            values = [int(x) for x in re.findall(r"\d+", line)]
            for name, value in zip(names, values):
                if name in totals:
                    totals[name] += value
        elif line.startswith("disagreement: "):
            disagreements.add(line.strip())
        elif line.startswith("flake: "):
            flakes.add(line.strip())
        elif line.startswith("exit "):
            exits.append(line.split()[1])
for name, value in totals.items():
    print(f"{name}: {value}")
print(f"shards: {len(exits)}, exit codes {sorted(set(exits))}")
print(f"disagreements: {len(disagreements)}")
for d in sorted(disagreements) + sorted(flakes):
    print(d)
PY
