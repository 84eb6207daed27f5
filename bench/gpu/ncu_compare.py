#!/usr/bin/env python3
"""Sets the hardware counters that bench/gpu/ncu.sh read beside the
emulator's figures for the same launches (docs/gpu-check.md, "Sectors and
wavefronts on the hardware").

    python3 bench/gpu/ncu_compare.py PTXRAY bench/gpu/gpu.launches NCU_CSV

For each launch it runs `PTXRAY run --coalescing --bankcheck --format json`
on the same inputs and sums, per kernel: global requests and 32-byte
sectors of loads, stores, atomics and reductions, and shared-memory
requests and wavefronts of loads and stores.  One row per figure, with
the GPU's value, the emulator's and whether they are equal.

The global figures are the coalescing model's claim (a PTX access of a
warp is one request, its sectors the distinct 32-byte sectors its active
lanes touch) and must be equal: exit status 1 otherwise.  The shared
figures are printed but do not decide the status: they count SASS
instructions, and ptxas may merge adjacent `ld.shared` into one wider LDS
or turn a guarded store into a predicated STS that executes with no active
lane; the hardware's wavefront counter also includes arbitration
wavefronts (docs/gpu-check.md).
"""
import csv
import json
import subprocess
import sys

HW = {  # (row name, ncu metric)
    "global ld requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global ld sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global st requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "global st sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "global atom requests": "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "global atom sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "global red requests": "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "global red sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "shared ld requests": "smsp__inst_executed_op_shared_ld.sum",
    "shared ld wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared st requests": "smsp__inst_executed_op_shared_st.sum",
    "shared st wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}


def kind(instr):
    op = instr.split(".")[0]
    return {"ld": "ld", "st": "st", "atom": "atom", "red": "red"}.get(op)


def emulate(ptxray, words):
    f, k, grid, block, args = words[0], words[1], words[2], words[3], words[4:]
    cmd = [ptxray, "run", "ptx-corpus/sm_90/%s.ptx" % f, "--kernel", k,
           "--grid", grid, "--block", block, "--coalescing", "--bankcheck",
           "--format", "json", "-q"]
    for a in args:
        cmd += ["--arg", a]
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                  text=True).stdout)
    s = {name: 0 for name in HW}
    for c in r["coalescing"]:
        t = kind(c["instruction"])
        if t:
            s["global %s requests" % t] += c["requests"]
            s["global %s sectors" % t] += c["sectors"]
    for b in r["bank_conflicts"]:
        t = kind(b["instruction"])
        if t in ("ld", "st"):
            s["shared %s requests" % t] += b["requests"]
            s["shared %s wavefronts" % t] += b["wavefronts"]
    return r["symbol"], s


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ptxray, launches, ncu_csv = sys.argv[1:]
    hw = {}
    with open(ncu_csv) as fh:
        for row in csv.DictReader(fh):
            v = row["Metric Value"].replace(",", "")
            hw.setdefault(row["Kernel Name"], {})[row["Metric Name"]] = int(float(v))
    equal = differ = sh_equal = sh_differ = 0
    print("%-30s %-22s %12s %12s  %s" % ("kernel", "figure", "GPU", "emulator", ""))
    with open(launches) as fh:
        for line in fh:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            sym, emu = emulate(ptxray, words)
            got = hw.get(sym)
            if got is None:
                print("%-30s no ncu rows" % sym)
                differ += 1
                continue
            for name, metric in HW.items():
                g, e = got.get(metric), emu[name]
                if g is None or (g == 0 and e == 0):
                    continue
                same = g == e
                if name.startswith("global"):
                    equal += same
                    differ += not same
                else:
                    sh_equal += same
                    sh_differ += not same
                print("%-30s %-22s %12d %12d  %s" % (words[1][:30], name, g, e,
                      "equal" if same else "differ (%+.2f%%)" % (100.0 * (e - g) / g if g else 0)))
    print("global figures: %d equal, %d differ; shared figures (SASS-level, not judged): "
          "%d equal, %d differ" % (equal, differ, sh_equal, sh_differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
