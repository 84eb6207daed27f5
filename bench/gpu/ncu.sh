#!/bin/bash
# Hardware counters of the original kernels of bench/gpu/gpu.launches, read
# with Nsight Compute on a machine with an NVIDIA GPU (docs/gpu-check.md,
# "Sectors and wavefronts on the hardware"): global-memory requests and
# 32-byte sectors (loads, stores, atomics, reductions) and shared-memory
# instructions and wavefronts, per kernel.  bench/gpu/ncu_compare.py sets
# them beside the emulator's figures for the same launches.
# Usage: bench/gpu/ncu.sh OUTDIR   (writes OUTDIR/ncu.csv)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: ncu.sh OUTDIR}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
ncu=$(command -v ncu || echo "$cuda/bin/ncu")
cc=$(command -v gcc || command -v cc)
$cc -std=c11 -O2 -I"$cuda/include" -Iemu -Iptxparse bench/gpu/gpurun.c emu/run_spec.c emu/fp.c \
    -L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lm -o /tmp/gpurun || exit 2
m=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
m=$m,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
m=$m,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
# one run of each original (--reps 0): ncu replays it once per metric pass,
# restoring memory between passes
"$ncu" --csv --print-units base --print-kernel-base mangled --metrics "$m" \
    /tmp/gpurun --reps 0 --variant "orig=ptx-corpus/sm_90/%s.ptx" bench/gpu/gpu.launches \
    > "$out/ncu.raw" 2> "$out/ncu.err"
rc=$?
grep '^"' "$out/ncu.raw" > "$out/ncu.csv"
echo "ncu: rc $rc, $(($(wc -l < "$out/ncu.csv") - 1)) metric rows in $out/ncu.csv"
exit $rc
