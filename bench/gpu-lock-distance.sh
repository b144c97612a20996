#!/usr/bin/env bash
# Device run: does the distance between a spin lock and the data it guards decide whether
# cbe-dot's missing fences show? bench/lock-distance/ is cbe-dot's critical section with the
# lock DIST words after the total, in one buffer; then the bundled cbe-dot, ct-octree and
# tpo-tm under hand-set stress shapes.
set -u
out=${1:-out}; mkdir -p "$out"
. bench/lib.sh
spec=$out/lock_distance.toml
cp bench/lock-distance/lock_distance.wgsl "$out/"
for d in ${DISTS:-1 8 32 64 128 256 512 1024 2048 4096 16384 65536 262144}; do
  sed "s/^DIST = .*/DIST = $d/" bench/lock-distance/lock_distance.toml > "$spec"
  measure "lock-distance $d none" "$spec" --strategy none --time 2
  measure "lock-distance $d systematic" "$spec" --time 3
done
L="--variant buggy --size large --time 4"
measure "cbe-dot default" cbe-dot $L
measure "cbe-dot st" cbe-dot $L --sequence st
measure "cbe-dot st;st;st;st" cbe-dot $L --sequence 'st;st;st;st'
measure "cbe-dot spread 8" cbe-dot $L --spread 8
measure "cbe-dot spread 64" cbe-dot $L --spread 64
measure "cbe-dot st it512" cbe-dot $L --sequence st --iterations 512
measure "ct-octree st;st spread 8" ct-octree $L --sequence 'st;st' --spread 8
measure "ct-octree it2048" ct-octree $L --iterations 2048
