#!/usr/bin/env bash
# Device run (issue 4): `wgstress compare` for every buggy variant, $SECONDS_EACH seconds per
# strategy and shuffle setting. Tables in compare.txt, JSON and charts packed into compare.tgz.
set -u
out=${1:-out}; mkdir -p "$out/compare"
w=.gpu/bin/wgstress
for app in ${APPS:-$($w apps | awk '{print $1}')}; do
  $w compare $app --variant buggy --size large --time ${SECONDS_EACH:-60} --rounds 4 --no-log ${COMPARE_ARGS:-} \
     --svg "$out/compare/$app.svg" 2>>"$out/stderr.log" | tee -a "$out/compare.txt"
done
tar czf "$out/compare.tgz" -C "$out" compare
