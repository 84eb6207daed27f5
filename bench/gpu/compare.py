#!/usr/bin/env python3
"""Compares the GPU's buffers (gpurun --dump) with the emulator's
(`ptxray run --dump`, bench/gpu/prepare.sh) launch by launch
(docs/gpu-check.md).  Integer buffers must be identical; float buffers are
compared element by element and the largest differences printed, since
ptxas contracts a separate mul and add of the PTX into one fma on the GPU
(the ISA allows it for instructions without a rounding modifier) and
the .approx functions are not bit-specified.
Usage: compare.py LAUNCHES EMU_DIR GPU_DIR"""
import struct, sys

FMT = {'f32': 'f', 'f64': 'd', 'i32': 'i', 'u32': 'I', 's32': 'i', 'b32': 'I',
       'i64': 'q', 'u64': 'Q', 's64': 'q', 'b64': 'Q', 'u8': 'B', 'i8': 'b',
       'b8': 'B', 's8': 'b', 'u16': 'H', 'i16': 'h', 's16': 'h', 'b16': 'H'}

def main():
    launches, emu, gpu = sys.argv[1:4]
    li, bad = 0, 0
    for line in open(launches):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        bi = 0
        for a in w[4:]:
            body = a.split('=', 1)[1] if '=' in a and ':' not in a.split('=', 1)[0] else a
            if not body.startswith('buf:'):
                continue
            t = body.split(':')[1]
            e = open(f'{emu}/L{li}.B{bi}.bin', 'rb').read()
            g = open(f'{gpu}/L{li}.B{bi}.bin', 'rb').read()
            if e == g:
                verdict = 'identical'
            elif t not in ('f32', 'f64') or len(e) != len(g):
                verdict = 'DIFFER'
                bad += 1
            else:
                n = len(e) // struct.calcsize(FMT[t])
                xs = struct.unpack(f'<{n}{FMT[t]}', e)
                ys = struct.unpack(f'<{n}{FMT[t]}', g)
                diff = [(abs(x - y), abs(x - y) / max(abs(x), 1e-30)) for x, y in zip(xs, ys) if x != y]
                verdict = (f'{len(diff)} of {n} elements differ, max |d| {max(d for d, _ in diff):.3g}, '
                           f'max rel {max(r for _, r in diff):.3g}')
            print(f'{w[1]:<30} buffer {bi} ({t}, {len(e)} B): {verdict}')
            bi += 1
        li += 1
    print(f'launches: {li}; integer buffers that differ: {bad}')
    return 1 if bad else 0

sys.exit(main())
