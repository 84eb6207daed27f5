#!/usr/bin/env python3
"""Reruns the README's shell samples and compares their output.

The README promises real output of each subcommand.  Every fenced block
whose first line starts with "$ " is a sample: each "$ " line is a
command (a trailing backslash continues it on the next line), the lines
up to the next "$ " line are what it printed, stdout and stderr together.
A line "..." (indented or not) in the expected text stands for any
number of lines, and "..." inside a line for any text (the README cuts
long outputs).

Commands run with bash in a scratch directory where bin/, ptx-corpus/,
tests/ and scripts/ of the repository are linked, so that the files a
sample writes (out.ptx, shapes.json, /tmp paths aside) do not land in the
tree.  Skipped, and named: a sample whose input file is not in the
repository (the README's broken.ptx, bad.cu: shown, not shipped), a
benchmark's output (ptxray-*bench: timings), and, where ptxas or nvcc is
missing, a sample that runs them.

Output that names where the repository is (nvcc passes absolute source
paths on) is compared with the repository's directory, and the scratch
directory, read as /path/to/ptxray.

--update writes the actual output into the README for each sample that
differs, keeping its cuts: as many lines before its first "..." and after
its last one as it had, "..." between.

usage: readme_samples.py [--readme README.md] [--root DIR] [--update]
Exit status: 0 all compared samples equal (or updated), 1 a difference,
2 usage.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINKED = ("bin", "ptx-corpus", "tests", "scripts")
MARK = "@@ptxray-readme-sample@@"
PLACE = "/path/to/ptxray"


def samples(text):
    """Yields (line number, [(command, [expected lines], first, end)]) per
    sample block: first..end the expected lines' indices in the text."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("```") and i + 1 < len(lines) and lines[i + 1].startswith("$ "):
            start = i + 2
            j = i + 1
            body = []
            while j < len(lines) and not lines[j].startswith("```"):
                body.append(lines[j])
                j += 1
            cmds = []
            k = 0
            while k < len(body):
                if body[k].startswith("$ "):
                    cmd = body[k][2:]
                    while cmd.endswith("\\") and k + 1 < len(body):
                        k += 1
                        cmd = cmd + "\n" + body[k]
                    cmds.append([cmd, [], i + 2 + k, i + 2 + k])
                else:
                    cmds[-1][1].append(body[k])
                    cmds[-1][3] = i + 2 + k
                k += 1
            yield start, cmds
            i = j + 1
        else:
            i += 1


def line_matches(expected, actual):
    """A "..." inside a line stands for any text."""
    if "..." not in expected:
        return expected == actual
    return re.fullmatch(".*".join(re.escape(p) for p in expected.split("...")), actual) is not None


def matches(expected, actual):
    """Whether actual lines fit expected, "..." matching any run of lines."""
    memo = {}

    def go(e, a):
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            r = a == len(actual)
        elif expected[e].strip() == "...":
            r = any(go(e + 1, b) for b in range(a, len(actual) + 1))
        else:
            r = a < len(actual) and line_matches(expected[e], actual[a]) and go(e + 1, a + 1)
        memo[(e, a)] = r
        return r

    return go(0, 0)


def written_by(cmd):
    return set(re.findall(r"-o\s+([\w./-]+)", cmd))


def abridge(expected, actual):
    """actual, cut where expected was cut: the lines before and after its
    one "..." kept; None when it was cut in several places (which lines to
    keep is then for a person to choose)."""
    cuts = [i for i, e in enumerate(expected) if e.strip() == "..."]
    if not cuts:
        return actual
    if len(cuts) > 1:
        return None
    head, tail = cuts[0], len(expected) - 1 - cuts[0]
    if head + tail >= len(actual):
        return actual
    return actual[:head] + [expected[head]] + actual[len(actual) - tail:]


def missing_inputs(cmd, root, scratch, written):
    """Relative file names the command reads that neither tree has, nor
    an earlier command of the block writes."""
    out = []
    written = written | written_by(cmd)
    for word in re.findall(r"[\w./-]+\.(?:ptx|cu|json)\b", cmd):
        if word.startswith("/") or word in written:
            continue
        if not os.path.exists(os.path.join(root, word)) and not os.path.exists(os.path.join(scratch, word)):
            out.append(word)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--root", default=".")
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    with open(os.path.join(root, args.readme), encoding="utf-8") as f:
        text = f.read()
    have_cuda = shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/local/cuda/bin"
    env["LC_ALL"] = "C"
    equal = differ = skipped = 0
    edits = []
    with tempfile.TemporaryDirectory(prefix="ptxray-readme-") as scratch:
        for d in LINKED:
            os.symlink(os.path.join(root, d), os.path.join(scratch, d))
        for line, cmds in samples(text):
            # the block runs as one script, so that "$ echo $?" sees the
            # status of the command before it; a marker line after each
            # command splits the output
            script, checked, written, gone = ["exec 2>&1"], [], set(), False
            for n, (cmd, expected, first, end) in enumerate(cmds):
                where = f"{args.readme}:{line}: $ {cmd.splitlines()[0]}"
                miss = missing_inputs(cmd, root, scratch, written)
                written |= written_by(cmd)
                why = None
                if gone:  # it may read what the skipped one makes
                    why = "it follows a sample skipped for its input"
                elif miss:
                    why, gone = f"{', '.join(miss)} not in the repository", True
                elif re.search(r"ptxray-\w*bench\b", cmd):
                    why = "a benchmark (timings)"
                elif ("nvcc" in cmd or "ptxas" in cmd) and not have_cuda:
                    why = "no CUDA toolkit"
                if why:
                    print(f"skipped {where}: {why}")
                    skipped += 1
                    continue
                script += [cmd, f"__rc=$?; echo '{MARK}{n}'; (exit $__rc)"]
                checked.append((n, where, expected, first, end))
            if not checked:
                continue
            p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=scratch, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=600)
            parts, cur = {}, []
            for ln in p.stdout.decode("utf-8", "replace").split("\n"):
                if ln.startswith(MARK):
                    parts[int(ln[len(MARK):])] = cur
                    cur = []
                else:
                    cur.append(ln)
            for n, where, expected, first, end in checked:
                actual = parts.get(n, ["(no output: the script stopped before this command)"])
                actual = [ln.replace(scratch, PLACE).replace(root, PLACE) for ln in actual]
                if matches(expected, actual):
                    equal += 1
                else:
                    differ += 1
                    print(f"DIFFERS {where}")
                    new = abridge(expected, actual) if args.update else None
                    if new is not None:
                        edits.append((first, end, new))
                    elif args.update:
                        print("    (cut in several places: update it by hand)")
                    for d in difflib.unified_diff(expected, actual, "README", "actual", lineterm="", n=1):
                        print("    " + d)
    if args.update and edits:
        lines = text.split("\n")
        for first, end, new in sorted(edits, reverse=True):
            lines[first:end] = new
        path = os.path.join(root, args.readme)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        os.replace(path + ".tmp", path)
        print(f"updated {len(edits)} samples in {args.readme}")
        return 0
    print(f"README samples: {equal} equal, {differ} differ, {skipped} skipped")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
