#!/usr/bin/env python3
"""Agreement of ptxray's accept/reject decision with ptxas's (issue 14).

Takes the corpus's PTX files and makes single-token mutants of the kinds a
person or a generator gets wrong: misspelled opcodes, modifiers, types and
state spaces, illegal type sizes, vector widths, wrong operand counts,
swapped operand kinds, a .target or .version below what the file's
instructions need.  Each mutant goes to ptxas (-O0, for the mutated file's
target) and to `ptxray parse -q`; the script prints the agreement, per kind,
and every disagreement with both tools' first message.

A ptxray exit status other than 0 (accepted) or 2 (rejected) is a crash and
fails the run whatever the agreement.  The mutants depend only on --seed.

    fuzz/validity.py --ptxray build/rel/ptxray [--n 1000] [--seed 1] [--min 99]
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

INST_RE = re.compile(r'^(\s*(?:@!?%?[\w$]+\s+)?)([a-z][a-z0-9_]*)((?:\.[\w:]+)*)(\s+[^;]*)?;\s*$')
TYPES = ['.b8', '.b16', '.b32', '.b64', '.u8', '.u16', '.u32', '.u64', '.s8', '.s16', '.s32', '.s64',
         '.f16', '.f32', '.f64', '.pred']
BAD_TYPES = ['.s33', '.u33', '.b24', '.f31', '.u12', '.s7', '.b63', '.f128', '.u128x']
SPACES = ['.global', '.shared', '.local', '.const', '.param']
KINDS = ['opcode', 'modifier', 'type', 'bad_type', 'space', 'vector', 'operand_count', 'operand_kind',
         'target', 'version']


def misspell(word, rng):
    """A one-edit misspelling of word (letters only)."""
    w = list(word)
    op = rng.randrange(4)
    i = rng.randrange(len(w))
    letters = 'abcdefghijklmnopqrstuvwxyz'
    if op == 0 and len(w) > 1:
        j = min(i + 1, len(w) - 1)
        if i == j:
            i -= 1
        w[i], w[j] = w[j], w[i]
    elif op == 1:
        w.insert(i, rng.choice(letters))
    elif op == 2 and len(w) > 2:
        del w[i]
    else:
        w[i] = rng.choice(letters)
    out = ''.join(w)
    return out if out != word else word + rng.choice(letters)


def split_operands(text):
    out, depth, cur = [], 0, ''
    for ch in text:
        if ch in '[{(':
            depth += 1
        elif ch in ']})':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def instructions(lines):
    for i, line in enumerate(lines):
        if line.lstrip().startswith('//') or line.lstrip().startswith('.'):
            continue
        m = INST_RE.match(line)
        if m and not line.rstrip().endswith(':'):
            yield i, m


def mutate(text, kind, rng, opcodes):
    """One mutant of text, or None when the file offers no place for kind.
    Returns (new text, line number, description)."""
    lines = text.split('\n')
    insts = list(instructions(lines))
    if kind in ('target', 'version'):
        return mutate_header(lines, kind, rng)
    rng.shuffle(insts)
    for i, m in insts:
        pre, op, mods, opds = m.group(1), m.group(2), m.group(3), m.group(4) or ''
        modl = re.findall(r'\.[\w:]+', mods)
        new = None
        if kind == 'opcode':
            for _ in range(10):
                o = misspell(op, rng)
                if o not in opcodes:
                    new = pre + o + mods + opds + ';'
                    desc = f'opcode {op} -> {o}'
                    break
        elif kind == 'modifier':
            cand = [k for k, x in enumerate(modl) if x not in TYPES and x not in SPACES and '::' not in x
                    and len(x) > 2]
            if cand:
                k = rng.choice(cand)
                bad = '.' + misspell(modl[k][1:], rng)
                modl[k] = bad
                new = pre + op + ''.join(modl) + opds + ';'
                desc = f'modifier {m.group(3)} -> {"".join(modl)}'
        elif kind in ('type', 'bad_type'):
            cand = [k for k, x in enumerate(modl) if x in TYPES and x != '.pred']
            if cand and op not in ('wmma', 'mma', 'wgmma', 'tex', 'suld', 'sust', 'cp', 'tcgen05', 'ldmatrix'):
                k = rng.choice(cand)
                old = modl[k]
                if kind == 'bad_type':
                    modl[k] = rng.choice(BAD_TYPES)
                else:
                    size = re.sub(r'\D', '', old)
                    other = [t for t in TYPES if t != old and t != '.pred' and
                             (t[1] == old[1] or re.sub(r'\D', '', t) == size)]
                    modl[k] = rng.choice(other)
                new = pre + op + ''.join(modl) + opds + ';'
                desc = f'type {old} -> {modl[k]} in {op}{mods}'
        elif kind == 'space':
            cand = [k for k, x in enumerate(modl) if x in SPACES]
            if cand:
                k = rng.choice(cand)
                old = modl[k]
                modl[k] = '.' + misspell(old[1:], rng)
                new = pre + op + ''.join(modl) + opds + ';'
                desc = f'state space {old} -> {modl[k]} in {op}{mods}'
        elif kind == 'vector':
            cand = [k for k, x in enumerate(modl) if x in ('.v2', '.v4')]
            if cand and op in ('ld', 'st', 'ldu'):
                k = rng.choice(cand)
                old = modl[k]
                modl[k] = rng.choice([v for v in ('.v2', '.v3', '.v4', '.v8', '.v16') if v != old])
                new = pre + op + ''.join(modl) + opds + ';'
                desc = f'vector width {old} -> {modl[k]} in {op}{mods}'
        elif kind == 'operand_count':
            ops = split_operands(opds)
            if ops and op not in ('call', 'ret', 'bra', 'wmma', 'mma', 'tex'):
                if rng.random() < 0.5 and len(ops) > 1:
                    ops = ops[:-1]
                    what = 'dropped the last operand'
                else:
                    ops = ops + [ops[-1]]
                    what = 'repeated the last operand'
                new = pre + op + mods + ','.join(ops) + ';'
                desc = f'{what} of {op}{mods}'
        elif kind == 'operand_kind':
            ops = split_operands(opds)
            if len(ops) >= 2 and op not in ('call', 'bra', 'st', 'red', 'prefetch', 'bar', 'barrier'):
                first = ops[0].strip()
                if first.startswith('%') and '|' not in first:
                    ops[0] = ' ' + rng.choice(['1', '0f3F800000', '[%s]' % first])
                    new = pre + op + mods + ','.join(ops) + ';'
                    desc = f'result {first} of {op}{mods} -> {ops[0].strip()}'
        if new is not None:
            lines[i] = new
            return '\n'.join(lines), i + 1, desc
    return None


def mutate_header(lines, kind, rng):
    for i, line in enumerate(lines):
        s = line.strip()
        if kind == 'target' and s.startswith('.target'):
            m = re.search(r'sm_(\d+)([af]?)', s)
            if not m:
                return None
            sm = int(m.group(1))
            lower = [t for t in (75, 80, 86, 89, 90) if t < sm] or ([90] if m.group(2) else [])
            if not lower:
                return None
            t = rng.choice(lower)
            lines[i] = line.replace(m.group(0), f'sm_{t}')
            return '\n'.join(lines), i + 1, f'.target {m.group(0)} -> sm_{t}'
        if kind == 'version' and s.startswith('.version'):
            old = s.split()[1]
            v = rng.choice(['6.3', '6.4', '7.0', '7.4', '7.8', '8.0', '8.3', '8.6'])
            lines[i] = line.replace(old, v)
            return '\n'.join(lines), i + 1, f'.version {old} -> {v}'
    return None


def target_of(text):
    m = re.search(r'^\s*\.target\s+([^\n]*)', text, re.M)
    t = m and re.search(r'sm_\d+[af]?', m.group(1))
    return t.group(0) if t else 'sm_75'


def first_error(text):
    for line in text.splitlines():
        if 'error' in line or 'fatal' in line:
            return line.strip()[:200]
    return text.strip().splitlines()[0][:200] if text.strip() else ''


def judge(args, path, text):
    arch = target_of(text)
    if int(re.sub(r'\D', '', arch)) < 75:
        arch = 'sm_75'
    p = subprocess.run([args.ptxas, '-O0', f'-arch={arch}', path, '-o', os.devnull],
                       capture_output=True, text=True, errors='replace')
    ptxas_ok = p.returncode == 0
    r = subprocess.run([args.ptxray, 'parse', '-q', path], capture_output=True, text=True, errors='replace')
    return ptxas_ok, r.returncode, first_error(p.stdout + p.stderr), first_error(r.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--ptxray', required=True)
    ap.add_argument('--ptxas', default=shutil.which('ptxas') or '/usr/local/cuda/bin/ptxas')
    ap.add_argument('--corpus', default='ptx-corpus')
    ap.add_argument('--n', type=int, default=1000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--min', type=float, default=99.0, help='agreement (%%) below which the run fails')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--max-bytes', type=int, default=0, help='only corpus files up to this size (0: all)')
    ap.add_argument('--keep', help='directory to keep the disagreeing mutants in')
    args = ap.parse_args()
    if not os.path.exists(args.ptxas):
        print(f'validity: ptxas not found ({args.ptxas}): skipped')
        return 0
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.corpus) for f in fs if f.endswith('.ptx'))
    files = [f for f in files if '/debug/' not in f and (not args.max_bytes or os.path.getsize(f) <= args.max_bytes)]
    texts = {f: open(f, encoding='utf-8', errors='replace').read() for f in files}
    opcodes = set()
    for t in texts.values():
        for _, m in instructions(t.split('\n')):
            opcodes.add(m.group(2))
    opcodes |= {'ld', 'st', 'add', 'sub', 'mul', 'mad', 'and', 'or', 'xor', 'not', 'min', 'max', 'abs', 'neg',
                'shl', 'shr', 'cvt', 'mov', 'set', 'setp', 'selp', 'bar', 'bra', 'ret', 'exit', 'call', 'div', 'rem',
                'ldu', 'red', 'atom', 'fma', 'rcp', 'sqrt', 'sin', 'cos', 'lg2', 'ex2', 'vote', 'shfl', 'prmt',
                'cnot', 'copysign', 'testp', 'slct', 'sad', 'popc', 'clz', 'bfe', 'bfi', 'brev', 'trap', 'cp'}
    rng = random.Random(args.seed)
    mutants = []
    tries = 0
    while len(mutants) < args.n and tries < args.n * 20:
        tries += 1
        f = rng.choice(files)
        kind = KINDS[len(mutants) % len(KINDS)]
        r = mutate(texts[f], kind, rng, opcodes)
        if r:
            mutants.append((f, kind) + r)
    tmp = tempfile.mkdtemp(prefix='ptxray-validity-')
    paths = []
    for k, (f, kind, text, line, desc) in enumerate(mutants):
        p = os.path.join(tmp, f'm{k:05d}.ptx')
        with open(p, 'w') as fh:
            fh.write(text)
        paths.append(p)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(lambda a: judge(args, a[0], a[1]), zip(paths, (m[2] for m in mutants))))
    agree = crashes = 0
    per = {k: [0, 0] for k in KINDS}
    dis = []
    for (f, kind, text, line, desc), p, (px_ok, rc, px_msg, pr_msg) in zip(mutants, paths, results):
        if rc not in (0, 2):
            crashes += 1
        pr_ok = rc == 0
        per[kind][1] += 1
        if pr_ok == px_ok:
            agree += 1
            per[kind][0] += 1
        else:
            dis.append((f, line, kind, desc, px_ok, px_msg, pr_ok, pr_msg, p))
    n = len(mutants)
    rejected = sum(1 for r in results if not r[0])
    print(f'validity: {n} mutants of {len(files)} corpus files (seed {args.seed}); ptxas rejects {rejected}, '
          f'accepts {n - rejected}')
    for k in KINDS:
        a, t = per[k]
        if t:
            print(f'  {k:14s} {a:5d}/{t:<5d} agree')
    for f, line, kind, desc, px_ok, px_msg, pr_ok, pr_msg, p in dis:
        print(f'disagreement: {f}:{line}: {kind}: {desc}\n'
              f'    ptxas  {"accepts" if px_ok else "rejects"}: {px_msg}\n'
              f'    ptxray {"accepts" if pr_ok else "rejects"}: {pr_msg}')
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(p, args.keep)
    pct = 100.0 * agree / n if n else 100.0
    print(f'agreement with ptxas: {agree}/{n} = {pct:.1f}% (target >= {args.min:g}%); ptxray crashes: {crashes}')
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if pct >= args.min and crashes == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
