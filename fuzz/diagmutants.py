#!/usr/bin/env python3
"""The front end's diagnostics before and after a change (issue 34).

Makes N single-edit mutants of corpus lines (a character deleted, inserted
or replaced, a token deleted, repeated or swapped with its neighbour, a
line deleted or repeated, the file cut inside a line, a name changed), runs
`ptxray parse` of two builds on each and compares stdout, stderr and the
exit status byte for byte.  The mutants depend only on --seed; the
reference build's results are kept in --cache so that later runs only run
the new build.

    fuzz/diagmutants.py --new bin/ptxray --ref /work/base/ptxray [--n 7500] [--seed 34]

Prints "identical K/N" and, for each difference, the mutant and both
results; exits 1 when any differ.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import subprocess
import sys

PUNCT = ';,:(){}[]<>+-*/%&|^~!@=?._'
TOKEN_RE = re.compile(r'%?[A-Za-z_$][\w$]*(?:\.[\w:]+)*|\.[\w:]+|0[xXfFdD][0-9a-fA-F]+|\d+(?:\.\d*)?|"[^"]*"|\S')


def corpus_files(root):
    out = []
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith('.ptx'):
                out.append(os.path.join(d, f))
    return sorted(out)


def edit_line(line, rng):
    """One edit of line (a str without its newline): (new line or None to
    delete the line, description)."""
    kind = rng.randrange(11)
    if not line.strip():
        kind = 9
    toks = [(m.start(), m.end()) for m in TOKEN_RE.finditer(line)]
    if kind in (0, 1, 2):
        i = rng.randrange(len(line) + (1 if kind == 1 else 0))
        c = rng.choice(PUNCT + ' \t' + 'ax9%"' + '\n')
        if kind == 0:
            return line[:i] + line[i + 1:], f'delete char {i}'
        if kind == 1:
            return line[:i] + c + line[i:], f'insert {c!r} at {i}'
        return line[:i] + c + line[i + 1:], f'replace char {i} by {c!r}'
    if kind in (3, 4, 5, 6) and toks:
        k = rng.randrange(len(toks))
        s, e = toks[k]
        if kind == 3:
            return line[:s] + line[e:], f'delete token {line[s:e]!r}'
        if kind == 4:
            return line[:e] + ' ' + line[s:e] + line[e:], f'repeat token {line[s:e]!r}'
        if kind == 5 and k + 1 < len(toks):
            s2, e2 = toks[k + 1]
            return line[:s] + line[s2:e2] + line[e:s2] + line[s:e] + line[e2:], 'swap tokens'
        # kind 6 (or 5 at the last token): a name or number changed
        t = line[s:e]
        repl = rng.choice(['%r999', 'foo', '%p0', '0x7fffffffffffffffff', '1.5', '0f3F80', '_', 'WARP_SZ',
                           '%tid.w', '.u33', 'ld.global.f32', '-', '8.0.1', '09', '"s"'])
        return line[:s] + repl + line[e:], f'token {t!r} -> {repl!r}'
    if kind == 7:
        return None, 'delete line'
    if kind == 8:
        return line + '\n' + line, 'repeat line'
    if kind == 9:
        return line + rng.choice([';', '}', '{', ' .reg .b32 %q;', ' @%p1 bra L;', ')']), 'append'
    i = rng.randrange(len(line) + 1)
    return '\0CUT' + line[:i], f'cut file at column {i + 1}'


def make_mutants(files, n, seed):
    rng = random.Random(seed)
    texts = {}
    out = []
    while len(out) < n:
        f = rng.choice(files)
        if f not in texts:
            with open(f, encoding='utf-8', errors='surrogateescape') as fh:
                texts[f] = fh.read().split('\n')
        lines = texts[f]
        i = rng.randrange(len(lines))
        new, desc = edit_line(lines[i], rng)
        if new is None:
            mut = lines[:i] + lines[i + 1:]
        elif new.startswith('\0CUT'):
            mut = lines[:i] + [new[4:]]
        else:
            mut = lines[:i] + [new] + lines[i + 1:]
        out.append((f, i + 1, desc, '\n'.join(mut)))
    return out


def run(binary, path):
    p = subprocess.run([binary, 'parse', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return [p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--new', required=True)
    ap.add_argument('--ref', required=True)
    ap.add_argument('--corpus', default='ptx-corpus')
    ap.add_argument('--n', type=int, default=7500)
    ap.add_argument('--seed', type=int, default=34)
    ap.add_argument('--dir', default='build/diagmut')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--show', type=int, default=20)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    muts = make_mutants(corpus_files(a.corpus), a.n, a.seed)
    paths = []
    for k, (_, _, _, text) in enumerate(muts):
        p = os.path.join(a.dir, f'm{k:05d}.ptx')
        data = text.encode('utf-8', 'surrogateescape')
        if not os.path.exists(p) or open(p, 'rb').read() != data:
            with open(p, 'wb') as fh:
                fh.write(data)
        paths.append(p)
    h = hashlib.sha256(open(a.ref, 'rb').read()).hexdigest()[:16]
    cache = os.path.join(a.dir, f'ref-{h}-{a.seed}-{a.n}.json')
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        if os.path.exists(cache):
            ref = json.load(open(cache))
        else:
            ref = list(ex.map(lambda p: run(a.ref, p), paths))
            json.dump(ref, open(cache, 'w'))
        new = list(ex.map(lambda p: run(a.new, p), paths))
    same = 0
    shown = 0
    for k, (r, x) in enumerate(zip(ref, new)):
        if r == x:
            same += 1
            continue
        if shown < a.show:
            shown += 1
            f, line, desc, _ = muts[k]
            print(f'--- {paths[k]}: {f}:{line}: {desc}')
            print(f'  ref rc={r[0]} {r[2][:600]!r}')
            print(f'  new rc={x[0]} {x[2][:600]!r}')
            if r[1] != x[1]:
                print(f'  stdout differs: ref {r[1][:200]!r} new {x[1][:200]!r}')
    crashes = sum(1 for x in new if x[0] not in (0, 2))
    rejected = sum(1 for r in ref if r[0] == 2)
    print(f'identical {same}/{len(muts)} (reference rejects {rejected}; new build crashes {crashes})')
    sys.exit(0 if same == len(muts) and not crashes else 1)


if __name__ == '__main__':
    main()
