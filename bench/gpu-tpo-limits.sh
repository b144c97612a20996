#!/usr/bin/env bash
# tpo-tm: failing-run cost against the watchdog limit and stress iterations.
out=$1; mkdir -p $out
w=.gpu/bin/wgstress
one() { # label args...
  local label=$1; shift
  local s=$(date +%s.%N)
  local json=$($w run tpo-tm --size large --time 25 --timeout 60 --json --no-log "$@" 2>>$out/stderr.log)
  local e=$(date +%s.%N)
  echo "$json" | tr -d '\n' >> $out/tpo.jsonl; echo >> $out/tpo.jsonl
  python3 - "$label" "$s" "$e" "$json" <<'PY'
import json,sys
label,s,e,t=sys.argv[1:]
try: d=json.loads(t)
except Exception: print(label,"ERROR",t[:300]); sys.exit()
c=d['counts']
print(f"{label:<48} wall {float(e)-float(s):5.1f} runs {d['runs']:>5} {d['runs_per_second']:7.2f}/s fail {d['failures']:>4} (post {c['postcondition']} wd {c['watchdog']}) limit {d['loop_limit']} longest_pass {d['longest_passing_loop']} iters {d['iterations']} aborted {d['aborted']}")
PY
}
for L in 20000 65536 150000 300000; do
  one "buggy st;st k2 iters 4096 limit $L" --variant buggy --sequence 'st;st' --spread 2 --iterations 4096 --watchdog-limit $L
done
one "buggy st;st k2 iters 32768 limit 150000" --variant buggy --sequence 'st;st' --spread 2 --iterations 32768 --watchdog-limit 150000
one "buggy none limit 150000" --variant buggy --strategy none --watchdog-limit 150000
one "buggy default (adaptive, learned)" --variant buggy
one "fixed st;st k2 iters 4096 limit 150000" --variant fixed --sequence 'st;st' --spread 2 --iterations 4096 --watchdog-limit 150000
