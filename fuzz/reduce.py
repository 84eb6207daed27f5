#!/usr/bin/env python3
"""Line-wise reduction of a generated kernel (ddmin over its body lines):
fuzz/reduce.py IN.ptx OUT.ptx -- CMD...  keeps the smallest file for which
CMD (with {} replaced by the candidate's path) still exits 0 ("still fails").
Used to turn a difftest failure into a small regression test (docs/testing.md)."""
import os, subprocess, sys, tempfile

def main():
    src, dst = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index('--') + 1:]
    lines = open(src).read().split('\n')
    fd, tmp = tempfile.mkstemp(suffix='.ptx')
    os.close(fd)

    def bad(ls):
        open(tmp, 'w').write('\n'.join(ls))
        return subprocess.run([c.replace('{}', tmp) for c in cmd], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0

    assert bad(lines), 'the input does not fail'
    # body lines only: between the first '{' of the entry and its end
    keep = [True] * len(lines)
    n = 2
    while True:
        idx = [i for i in range(len(lines)) if keep[i] and lines[i].startswith('\t') and '.reg' not in lines[i]]
        if not idx:
            break
        chunk = max(1, len(idx) // n)
        changed = False
        for s in range(0, len(idx), chunk):
            trial = keep[:]
            for i in idx[s:s + chunk]:
                trial[i] = False
            if bad([l for l, k in zip(lines, trial) if k]):
                keep = trial
                changed = True
        if not changed:
            if chunk == 1:
                break
            n *= 2
    open(dst, 'w').write('\n'.join(l for l, k in zip(lines, keep) if k))
    os.unlink(tmp)

main()
