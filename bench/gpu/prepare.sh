#!/bin/bash
# Builds what bench/gpu/device.sh runs on a GPU machine (docs/gpu-check.md):
# the `ptxray regalloc` rewrites of every file bench/gpu/gpu.launches names
# (modes linear/div/aff at budgets 8 and 16, --target-regs 24 and 32), with
# each kernel's launch shape given by --block, and the emulator's output of
# the original kernels (`ptxray run --dump`) to compare the GPU's with.
# Usage: bench/gpu/prepare.sh [OUTDIR]   (default build/gpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/gpu}
bin=${PTXRAY:-bin/ptxray}
launches=bench/gpu/gpu.launches
rm -rf "$out"
mkdir -p "$out/emu"
files=$(grep -v '^#' $launches | awk 'NF {print $1}' | sort -u)
for f in $files; do
    blocks=$(grep -v '^#' $launches | awk -v f="$f" '$1 == f {print "--block " $2 "=" $4}' | sort -u)
    for k in 8 16; do
        for m in linear div aff; do
            $bin regalloc ptx-corpus/sm_90/$f.ptx --budget $k --mode $m $blocks -q -o "$out/$f.$m.$k.ptx"
        done
    done
    for n in 24 32; do
        $bin regalloc ptx-corpus/sm_90/$f.ptx --target-regs $n --mode aff --arch sm_90 $blocks -q \
            -o "$out/$f.tr$n.ptx"
    done
done
# the emulator's output of each original launch, buffer by buffer, named as
# gpurun --dump names the GPU's
li=0
grep -v '^#' $launches | while read -r f k g b rest; do
    [ -n "$f" ] || continue
    args=() dumps=() bi=0 pi=0
    for a in $rest; do
        case "$a" in
        *buf:*)
            if [[ "$a" == *=* && "${a%%=*}" != *:* ]]; then name=${a%%=*}; args+=(--arg "$a");
            else name=gpub$pi; args+=(--arg "$name=$a"); fi
            dumps+=(--dump "$name=$out/emu/L$li.B$bi.bin"); bi=$((bi + 1)) ;;
        *) args+=(--arg "$a") ;;
        esac
        pi=$((pi + 1))
    done
    $bin run ptx-corpus/sm_90/$f.ptx --kernel "$k" --grid "$g" --block "$b" "${args[@]}" "${dumps[@]}" -q
    li=$((li + 1))
done
du -sh "$out"
