#!/usr/bin/env bash
# Device run: how stress intensity changes what the buggy applications show.
set -u
out=${1:-out}; mkdir -p "$out"
. bench/lib.sh
L="--size large"
measure "global-barrier buggy" global-barrier --variant buggy $L --time 10
measure "global-barrier fixed" global-barrier --variant fixed $L --time 10
measure "cbe-dot buggy none" cbe-dot --variant buggy $L --strategy none --time 8
measure "cbe-dot buggy default" cbe-dot --variant buggy $L --time 8
measure "cbe-dot buggy ratio10" cbe-dot --variant buggy $L --time 8 --stress-ratio 10
measure "cbe-dot buggy it512" cbe-dot --variant buggy $L --time 8 --iterations 512
measure "cbe-dot buggy it512 f0.5-1" cbe-dot --variant buggy $L --time 8 --iterations 512 --stress-fraction 0.5-1.0
measure "cbe-dot buggy it512 f0.5-1 noshuf" cbe-dot --variant buggy $L --time 8 --iterations 512 --stress-fraction 0.5-1.0 --no-shuffle
measure "cbe-dot fixed it512 f0.5-1" cbe-dot --variant fixed $L --time 8 --iterations 512 --stress-fraction 0.5-1.0
measure "ct-octree buggy it512 f0.5-1" ct-octree --variant buggy $L --time 8 --iterations 512 --stress-fraction 0.5-1.0
measure "ct-octree buggy ratio10" ct-octree --variant buggy $L --time 8 --stress-ratio 10
measure "tpo-tm buggy it512 f0.5-1" tpo-tm --variant buggy $L --time 12 --iterations 512 --stress-fraction 0.5-1.0
measure "tpo-tm buggy none" tpo-tm --variant buggy $L --time 8 --strategy none
