#!/bin/bash
# Runs on a machine with an NVIDIA GPU and the CUDA toolkit (docs/gpu-check.md),
# after bench/gpu/prepare.sh built the rewrites into build/gpu here:
# builds gpurun against the driver API and runs every launch of
# bench/gpu/gpu.launches in the original and each rewrite.
# Usage: bench/gpu/device.sh OUTDIR [[LABEL=]DIR]...   (writes
# OUTDIR/gpurun.txt and OUTDIR/dump.tar, the original kernels' buffers
# after their run).  Each DIR holds a prepare.sh output (default
# build/gpu); with LABEL= its variants are named LABEL:mode.budget, to
# compare two builds of ptxray in one run.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: device.sh OUTDIR [[LABEL=]DIR]...}
shift
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(build/gpu)
mkdir -p "$out/dump"
cuda=${CUDA_HOME:-/usr/local/cuda}
cc=$(command -v gcc || command -v cc)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpurun.txt"
$cc -std=c11 -O2 -I"$cuda/include" -Iemu -Iptxparse bench/gpu/gpurun.c emu/run_spec.c emu/fp.c \
    -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm -o /tmp/gpurun || exit 2
v=(--variant "orig=ptx-corpus/sm_90/%s.ptx")
for d in "${dirs[@]}"; do
    p=; [[ "$d" == *=* ]] && p=${d%%=*}: && d=${d#*=}
    for k in 8 16; do for m in linear div aff; do v+=(--variant "$p$m.$k=$d/%s.$m.$k.ptx"); done; done
done
for n in 32 24; do
    v+=(--variant "orig@$n=ptx-corpus/sm_90/%s.ptx@$n")
    for d in "${dirs[@]}"; do
        p=; [[ "$d" == *=* ]] && p=${d%%=*}: && d=${d#*=}
        v+=(--variant "${p}tr$n@$n=$d/%s.tr$n.ptx@$n")
    done
done
# no JIT cache: every variant's ptxas figures come from its own compile
export CUDA_CACHE_DISABLE=1
/tmp/gpurun --reps "${REPS:-30}" --dump "$out/dump" "${v[@]}" bench/gpu/gpu.launches 2>&1 | tee -a "$out/gpurun.txt"
rc=${PIPESTATUS[0]}
tar -C "$out" -cf "$out/dump.tar" dump && rm -rf "$out/dump"
exit $rc
