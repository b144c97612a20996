#!/usr/bin/env bash
# Device run: does it matter where the stress workgroups sit among the dispatched ones?
set -u
out=${1:-out}; mkdir -p "$out"
. bench/lib.sh
for p in interleaved after before; do
  measure "cbe-dot buggy $p it512 f0.5-1" cbe-dot --variant buggy --size large --time 8 --iterations 512 --stress-fraction 0.5-1.0 --stress-placement $p
  measure "cbe-dot buggy $p" cbe-dot --variant buggy --size large --time 8 --stress-placement $p
  measure "sdk-red buggy $p" sdk-red --variant buggy --size large --time 8 --stress-placement $p
  measure "cbe-ht buggy $p" cbe-ht --variant buggy --size large --time 8 --stress-placement $p
done
