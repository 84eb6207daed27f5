#!/bin/bash
# Runs on a machine with an NVIDIA GPU and the CUDA toolkit (docs/gpu-check.md),
# after bench/gpu/prepare.sh built the rewrites into build/gpu here:
# builds gpurun against the driver API and runs every launch of
# bench/gpu/gpu.launches in the original and each rewrite.
# Usage: bench/gpu/device.sh OUTDIR   (writes OUTDIR/gpurun.txt and
# OUTDIR/dump.tar, the original kernels' buffers after their run)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: device.sh OUTDIR}
mkdir -p "$out/dump"
cuda=${CUDA_HOME:-/usr/local/cuda}
cc=$(command -v gcc || command -v cc)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpurun.txt"
$cc -std=c11 -O2 -I"$cuda/include" -Iemu -Iptxparse bench/gpu/gpurun.c emu/run_spec.c emu/fp.c \
    -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm -o /tmp/gpurun || exit 2
v=(--variant "orig=ptx-corpus/sm_90/%s.ptx")
for k in 8 16; do for m in linear div aff; do v+=(--variant "$m.$k=build/gpu/%s.$m.$k.ptx"); done; done
for n in 32 24; do v+=(--variant "orig@$n=ptx-corpus/sm_90/%s.ptx@$n" --variant "tr$n@$n=build/gpu/%s.tr$n.ptx@$n"); done
/tmp/gpurun --reps "${REPS:-30}" --dump "$out/dump" "${v[@]}" bench/gpu/gpu.launches 2>&1 | tee -a "$out/gpurun.txt"
rc=${PIPESTATUS[0]}
tar -C "$out" -cf "$out/dump.tar" dump && rm -rf "$out/dump"
exit $rc
