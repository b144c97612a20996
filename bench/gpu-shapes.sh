#!/usr/bin/env bash
# Device run (issue 13): which systematic stress shapes expose the hard bugs (tpo-tm,
# ct-octree, global-barrier), a few seconds each, before choosing the adaptive strategy's arms.
set -u
out=${1:-out}; mkdir -p "$out"
. bench/lib.sh
T=${SECONDS_EACH:-8}
for app in ${APPS:-tpo-tm ct-octree global-barrier}; do
  extra=""
  [ "$app" = tpo-tm ] && extra="--batch 8 --watchdog-limit 65536"
  for shape in "ld;st 2" "st;st 8" "st;st 2" "st 8" "st;st 32" "ld;st 8" "ld;ld;st 8" "st;st;st 4" "ld;ld;ld 2"; do
    set -- $shape
    measure "$app $1 k=$2" $app --variant buggy --size large --time $T --sequence "$1" --spread $2 $extra
  done
  measure "$app random" $app --variant buggy --size large --time $T --strategy random $extra
  measure "$app st;st 8 iters=512" $app --variant buggy --size large --time $T --sequence "st;st" --spread 8 --iterations 512 $extra
done
