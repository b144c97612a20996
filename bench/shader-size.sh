#!/usr/bin/env bash
# Host run (issue 24 item 2): how long `wgstress instrument` takes on a shader of small
# functions (each a `var`, a four-iteration `for` and a `return`, about 110 bytes) as the
# shader grows. SIZES in bytes (default 1, 2, 4, 10 and 50 MB), CAP (s, a `timeout` per size),
# WGSTRESS (the binary, default target/release/wgstress: `cargo build --release` first).
# One line per size: bytes, functions, exit status, wall seconds. The shaders stay in $out
# (the 50 MB one instruments to 380 MB of WGSL and a 40 MB manifest: a tmpfs such as /dev/shm
# spares the disk).
#
# What remains superlinear in the shader's size is naga's WGSL front end: its compact pass pops
# functions from a bit set by scanning it from the end (HandleSet::pop), quadratic in the number
# of functions. The timings are in bench/results/shader-size.txt.
set -u
out=${1:-out}; mkdir -p "$out"
w=${WGSTRESS:-target/release/wgstress}
for size in ${SIZES:-1000000 2000000 4000000 10000000 50000000}; do
  shader="$out/small-functions-$size.wgsl"
  awk -v target="$size" 'BEGIN {
    print "@group(0) @binding(0) var<storage, read_write> out: array<u32>;"
    n = 0; written = 0
    while (written < target) {
      f = sprintf("fn f%d(x: u32) -> u32 {\n    var s = x;\n    for (var k = 0u; k < 4u; k++) {\n        s += k ^ %du;\n    }\n    return s;\n}\n", n, n)
      printf "%s", f
      written += length(f); n++
    }
    print "@compute @workgroup_size(64)"
    print "fn main(@builtin(global_invocation_id) id: vec3<u32>) {"
    print "    out[id.x] = f0(id.x) + f" (n - 1) "(id.x);"
    print "}"
  }' > "$shader"
  functions=$(grep -c '^fn f' "$shader")
  start=$(date +%s.%N)
  timeout "${CAP:-600}" "$w" instrument "$shader" -o "$out/instrumented-$size.wgsl" \
    --manifest "$out/manifest-$size.json" 2>>"$out/stderr.log"
  code=$?
  end=$(date +%s.%N)
  printf '%10d bytes %7d functions exit %3d %8.2f s\n' "$size" "$functions" "$code" \
    "$(echo "$end - $start" | bc)"
done
