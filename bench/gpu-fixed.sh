#!/usr/bin/env bash
# Device run (issue 4): every fixed variant under systematic stress for $SECONDS_EACH seconds.
set -u
out=${1:-out}; mkdir -p "$out"
. bench/lib.sh
for app in ${APPS:-$($w apps | awk '{print $1}')}; do
  measure "$app fixed systematic" $app --variant fixed --size large --time ${SECONDS_EACH:-60}
done
