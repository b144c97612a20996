#!/usr/bin/env bash
# Device run: throughput of a small application (issue 3) and a first look at every bundled
# application, buggy and fixed, under systematic stress. Writes JSON and logs under $1.
set -u
out=${1:-out}
mkdir -p "$out"
w=.gpu/bin/wgstress
$w adapters > "$out/adapters.txt" 2>&1
cat "$out/adapters.txt"
for s in none systematic; do
  for b in 64 256; do
    $w run tests/fixtures/counter.toml --strategy $s --time 8 --batch $b --json --no-log > "$out/counter-$s-$b.json" 2>>"$out/stderr.log"
    python3 -c "import json,sys; d=json.load(open('$out/counter-$s-$b.json')); print('counter', '$s', 'batch', d['batch'], 'runs', d['runs'], 'runs/s', round(d['runs_per_second'],1), 'failures', d['failures'], 'iters', d['iterations'])"
  done
done
for app in $($w apps | awk '{print $1}'); do
  for v in buggy fixed; do
    $w run $app --variant $v --size large --time ${APP_SECONDS:-6} --json --log "$out/apps.jsonl" > "$out/$app-$v.json" 2>>"$out/stderr.log"
    python3 -c "import json; d=json.load(open('$out/$app-$v.json')); print('$app', '$v', 'runs', d['runs'], 'runs/s', round(d['runs_per_second'],1), 'failures', d['failures'], d['counts'], 'iters', d['iterations'], (d['first_failure'] or {}).get('detail','')[:140])"
  done
done
