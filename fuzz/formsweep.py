#!/usr/bin/env python3
"""ptxray's validator against ptxas on every combination of the arithmetic
modifiers (issue 34's follow-up, session 21).

For 18 arithmetic opcodes x the types of --types (by default 9: 3,240
forms; `make form-sweep` adds the packed .f32x2/.s16x2/.u16x2 at sm_100a)
x {-, .ftz} x {-, .rn, .approx, .lo, .hi} x {-, .sat}, one kernel each,
assembled by ptxas and parsed by `ptxray parse`; prints how many get the
same verdict (accepted or rejected) and each disagreement.  Unlike `make validity` (single-token
mutants of the corpus) it reaches modifier combinations nvcc never writes.

    fuzz/formsweep.py --ptxray bin/ptxray --ptxas /usr/local/cuda/bin/ptxas [--target sm_80 --version 8.0]

Exits 1 when any form disagrees.
"""
import argparse
import os
import subprocess
import sys
import tempfile

REG = {'f16': '%h1', 'bf16': '%h1', 'f16x2': '%r1', 'bf16x2': '%r1', 'f32': '%f1', 'f64': '%fd1',
       's32': '%r1', 'u32': '%r1', 's64': '%rd1', 'f32x2': '%rd1', 's16x2': '%r1', 'u16x2': '%r1'}
OPS = {'add': 2, 'sub': 2, 'mul': 2, 'min': 2, 'max': 2, 'fma': 3, 'mad': 3, 'div': 2, 'sqrt': 1, 'rcp': 1,
       'rsqrt': 1, 'abs': 1, 'neg': 1, 'ex2': 1, 'lg2': 1, 'sin': 1, 'cos': 1, 'tanh': 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ptxray', required=True)
    ap.add_argument('--ptxas', required=True)
    ap.add_argument('--target', default='sm_80')
    ap.add_argument('--version', default='8.0')
    ap.add_argument('--types', default='f16,bf16,f16x2,bf16x2,f32,f64,s32,u32,s64',
                    help='the type suffixes to sweep, comma-separated (those of REG)')
    a = ap.parse_args()
    head = ('.version %s\n.target %s\n.address_size 64\n.visible .entry k()\n{\n .reg .pred %%p<3>;\n'
            ' .reg .f32 %%f<3>;\n .reg .f64 %%fd<5>;\n .reg .b32 %%r<4>;\n .reg .b16 %%h<4>;\n'
            ' .reg .b64 %%rd<3>;\n' % (a.version, a.target))
    n = agree = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 't.ptx')
        for op, nsrc in OPS.items():
            for t in a.types.split(','):
                r = REG[t]
                for ftz in ('', '.ftz'):
                    for rnd in ('', '.rn', '.approx', '.lo', '.hi'):
                        for sat in ('', '.sat'):
                            form = '%s%s%s%s.%s %s' % (op, rnd, ftz, sat, t, ', '.join([r] * (nsrc + 1)))
                            with open(path, 'w') as f:
                                f.write(head + ' ' + form + ';\n ret;\n}\n')
                            x = subprocess.run([a.ptxas, '-arch=' + a.target, path, '-o', os.devnull],
                                               capture_output=True).returncode != 0
                            y = subprocess.run([a.ptxray, 'parse', path], capture_output=True).returncode != 0
                            n += 1
                            agree += x == y
                            if x != y:
                                print('%-50s ptxas %s, ptxray %s' % (form, 'rejects' if x else 'accepts',
                                                                     'rejects' if y else 'accepts'))
    print('form sweep (%s, PTX %s): %d/%d agree with ptxas' % (a.target, a.version, agree, n))
    return 0 if agree == n else 1


if __name__ == '__main__':
    sys.exit(main())
