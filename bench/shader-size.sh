#!/usr/bin/env bash
# Host run (issue 24 item 2): how long `wgstress instrument` takes on a shader of small
# functions (each a `var`, a four-iteration `for` and a `return`, about 110 bytes) as the
# shader grows. SIZES in bytes (default 1, 2, 4, 10 and 50 MB), CAP (s, a `timeout` per size),
# WGSTRESS (the binary, default target/release/wgstress: `cargo build --release` first).
# One line per size: bytes, functions, exit status, wall seconds. The shaders stay in $out
# (the 50 MB one instruments to 380 MB of WGSL and a 40 MB manifest: a tmpfs such as /dev/shm
# spares the disk).
#
# Release build of this branch (e88b898), 2 shared cores: 1 MB 0.50 s, 2 MB 1.07 s, 4 MB 3.02 s, 10 MB 12.6 s,
# 50 MB 241.5 s. Before (cf03d1c^, the library call alone): 1 MB 19-34 s, 2 MB 151 s; the
# issue measured 1 MB 10 s, 2 MB 41 s, 4 MB 149 s. What remains superlinear is naga's WGSL
# front end: its compact pass pops functions from a bit set by scanning it from the end
# (HandleSet::pop), quadratic in the number of functions: 59% of the samples at 10 MB, 85% at
# 50 MB (perf record); the rest of the 50 MB run took about 37 s.
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
