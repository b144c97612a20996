# Shared by the device scripts: run wgstress once and print one summary line.
w=.gpu/bin/wgstress
# measure LABEL ARGS...: runs `wgstress run ARGS --json`, prints the label and the key numbers.
measure() {
  local label=$1; shift
  local json
  json=$($w run "$@" --json --no-log 2>>"$out/stderr.log")
  echo "$json" >> "$out/runs.jsonl.txt"
  python3 - "$label" "$json" <<'PY'
import json, sys
label, text = sys.argv[1], sys.argv[2]
try:
    d = json.loads(text)
except Exception:
    print(label, "ERROR", text[:200]); sys.exit()
c = d["counts"]
first = (d["first_failure"] or {}).get("detail", "")[:110]
print(f"{label:<44} runs {d['runs']:>7} runs/s {d['runs_per_second']:>9.1f} fail {d['failures']:>6} "
      f"(post {c['postcondition']} assert {c['assertion']} wd {c['watchdog']}) iters {d['iterations']} batch {d['batch']} {first}")
PY
}
