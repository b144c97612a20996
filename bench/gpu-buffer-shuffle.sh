#!/usr/bin/env bash
# Device run: does the buffer shuffle (each run binds the application's storage buffers at one
# of 16 layouts) show bugs that fixed buffer placement hides, and what does it cost the others?
# Then the shapes that showed ct-octree's bug (bench/gpu-lock-distance.sh) on tpo-tm.
set -u
out=${1:-out}; mkdir -p "$out"
. bench/lib.sh
L="--variant buggy --size large"
for s in systematic random cache none; do
  for b in on off; do
    measure "cbe-dot $s buffers $b" cbe-dot $L --time 8 --strategy $s --buffer-shuffle $b
  done
done
for app in cbe-ht sdk-red cub-scan ct-octree; do
  for b in on off; do
    measure "$app systematic buffers $b" $app $L --time 6 --buffer-shuffle $b
  done
done
measure "cbe-dot fixed systematic buffers on" cbe-dot --variant fixed --size large --time 8
measure "tpo-tm st;st spread 8" tpo-tm $L --time 10 --sequence 'st;st' --spread 8
measure "tpo-tm st spread 8 it2048" tpo-tm $L --time 10 --sequence st --spread 8 --iterations 2048
measure "ct-octree st;st spread 8 buffers off" ct-octree $L --time 6 --sequence 'st;st' --spread 8 --buffer-shuffle off
measure "ct-octree st;st spread 2" ct-octree $L --time 6 --sequence 'st;st'
measure "ct-octree ld;st spread 8" ct-octree $L --time 6 --spread 8
measure "ct-octree st spread 8" ct-octree $L --time 6 --sequence st --spread 8
