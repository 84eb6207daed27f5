#!/bin/bash
# The warp forms' cost in instructions, which load cannot skew (issue 19's
# cost line; make bench prints the same ratio in CPU time): each of the
# four modes of `ptxray-divbench --one` runs once under callgrind, counting
# inside div_analyse only.  Usage: divbench-instr.sh DIVBENCH CORPUS_DIR
set -euo pipefail
bench=$1 corpus=$2
if ! command -v valgrind > /dev/null; then echo "divbench-instr: valgrind not found: skipped"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A n
for an in affine affine2; do
    for wf in poly forms; do
        valgrind --tool=callgrind --toggle-collect=div_analyse --callgrind-out-file="$tmp/out" \
            "$bench" --one "$an" "$wf" "$corpus" > /dev/null 2> "$tmp/err"
        n[$an.$wf]=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err")
        printf '%-7s %-5s %12s instructions in div_analyse\n' "$an" "$wf" "${n[$an.$wf]}"
    done
    awk -v a="${n[$an.poly]}" -v b="${n[$an.forms]}" -v an="$an" \
        'BEGIN { printf "%-7s warp forms / polynomials only: x%.3f (target <= 1.3)%s\n", an, b / a, b / a <= 1.3 ? "" : "  MISSED" }'
done
