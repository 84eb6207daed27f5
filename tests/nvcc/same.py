#!/usr/bin/env python3
"""Byte-compares the build outputs of two trees (tests/nvcc/projects.sh).

nvcc names its temporary files /tmp/tmpxft_<pid, 8 hex digits>_..., and the
host object embeds one of those names (the cudafe1.cpp it compiled), so two
plain nvcc builds of the same source already differ in those 8 digits.  The
comparison is byte for byte after replacing exactly that: each
"tmpxft_XXXXXXXX_" (same length) by a fixed string.

usage: same.py DIR_A DIR_B SUFFIX...   (files under DIR_A ending in a SUFFIX,
and a file named by a SUFFIX starting with '=' is compared by its exact name)
"""
import os, re, sys

TMP = re.compile(rb"tmpxft_[0-9a-f]{8}_")


def norm(path):
    with open(path, "rb") as f:
        return TMP.sub(b"tmpxft_XXXXXXXX_", f.read())


def main():
    a, b, sufs = sys.argv[1], sys.argv[2], sys.argv[3:]
    n = bad = 0
    for root, _, files in os.walk(a):
        for name in sorted(files):
            if not any(name.endswith(s) for s in sufs if not s.startswith("=")) and "=" + name not in sufs:
                continue
            pa = os.path.join(root, name)
            pb = os.path.join(b, os.path.relpath(pa, a))
            n += 1
            if not os.path.exists(pb):
                print(f"same.py: {pb}: missing")
                bad += 1
            elif norm(pa) != norm(pb):
                print(f"same.py: {pa} and {pb} differ")
                bad += 1
    print(f"same.py: {n} files compared, {bad} differ")
    sys.exit(1 if bad or not n else 0)


main()
