#!/usr/bin/env python3
"""Reruns the shell samples of the README and of every docs/*.md page and
compares their output; checks that the pages' links name files that exist.

The README and the docs promise real output of each subcommand.  Every
fenced block whose first line starts with "$ " is a sample: each "$ "
line is a command (a trailing backslash continues it on the next line),
the lines up to the next "$ " line are what it printed, stdout and stderr
together.  A line "..." (indented or not) in the expected text stands for
any number of lines, and "..." inside a line for any text (the pages cut
long outputs).

Commands run with bash in a scratch directory, one per page, where bin/,
ptx-corpus/, tests/ and scripts/ of the repository are linked, so that
the files a sample writes (out.ptx, shapes.json, /tmp paths aside) do not
land in the tree; a page's blocks share it, so a later block may read
what an earlier one wrote.  Skipped, and named: a sample whose input file
is not in the repository (broken.ptx: shown, not shipped) nor written by
an earlier command of its block (-o FILE, > FILE), a command that reads
what a skipped one would have written, a
benchmark's output (ptxray-*bench: timings), and, where ptxas or nvcc is
missing, a sample that runs them: one whose command names them or runs
them (CUDA_CMD: roundtrip, spillcost, --target-regs, analyze FILE.cu, a
CUDA project's cmake), or whose output names them; where cmake is
missing, a cmake sample.

Output that names where the repository is (nvcc passes absolute source
paths on) is compared with the repository's directory, and the scratch
directory, read as /path/to/ptxray.

Links: every [text](target) and <img src="target"> outside code blocks
that is not a URL must name a file or folder (relative to the page), and
every docs/NAME.md the text names must exist.

--update writes the actual output into the page for each sample that
differs, keeping its cuts: as many lines before its first "..." and after
its last one as it had, "..." between.

usage: readme_samples.py [--readme FILE] [--root DIR] [--update]
(--readme FILE: that one page instead of README.md and docs/*.md)
Exit status: 0 all compared samples equal (or updated) and no broken
link, 1 a difference or a broken link, 2 usage.
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
# commands that run nvcc or ptxas, named or not (a sample whose output
# names them runs them too: list's and analyze's ptxas figures)
CUDA_CMD = r"\b(?:nvcc|ptxas|roundtrip|spillcost|cmake)\b|--target-regs|\banalyze\b.*\.cu\b"


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
    """The files a command writes: its -o file and what it redirects
    stdout into."""
    return set(re.findall(r"(?:-o\s+|(?<![\d&])>\s*)([\w./-]+)", cmd))


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


def links(text):
    """Yields (line number, target, whether relative to the page) for
    each relative link of a page outside its code blocks: [text](target),
    <img src="target">, and a docs/NAME.md named in the text (relative to
    the repository: the pages name each other that way)."""
    fence = False
    for n, ln in enumerate(text.split("\n"), 1):
        if ln.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for t in re.findall(r"(?<![\w/.-])docs/[\w-]+\.md\b", ln):
            yield n, t, False
        ln = re.sub(r"`[^`]*`", "", ln)
        for t in re.findall(r"\]\(([^)\s]+)\)", ln) + re.findall(r'src="([^"]+)"', ln):
            if re.match(r"[a-z]+:", t) or t.startswith("#"):
                continue
            yield n, t.split("#")[0], True


def check_links(root, page, text):
    """The relative links of a page that name no file or folder of the
    tree, each printed; their number."""
    bad = 0
    for n, t, relative in links(text):
        if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(page) if relative else "", t))):
            print(f"{page}:{n}: link to {t}: no such file")
            bad += 1
    return bad


def check_page(root, page, scratch, env, have_cuda, update):
    """Runs the samples of one page; returns (equal, differ, skipped)
    and, with update, writes the actual output of those that differ."""
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    equal = differ = skipped = 0
    edits = []
    unmade = set()  # what the page's skipped commands would have written
    for line, cmds in samples(text):
        # the block runs as one script, so that "$ echo $?" sees the
        # status of the command before it; a marker line after each
        # command splits the output
        script, checked, written, gone = ["exec 2>&1"], [], set(), False
        for n, (cmd, expected, first, end) in enumerate(cmds):
            where = f"{page}:{line}: $ {cmd.splitlines()[0]}"
            miss = missing_inputs(cmd, root, scratch, written)
            written |= written_by(cmd)
            needs = [w for w in sorted(unmade) if re.search(r"(?<![\w./-])" + re.escape(w) + r"(?![\w.-])", cmd)]
            why = None
            if gone:  # it may read what the skipped one makes
                why = "it follows a sample skipped for its input"
            elif needs:
                why = f"it reads {', '.join(needs)}, which a skipped sample writes"
            elif miss:
                why, gone = f"{', '.join(miss)} not in the repository", True
            elif re.search(r"ptxray-\w*bench\b", cmd):
                why = "a benchmark (timings)"
            elif re.search(r"\bcmake\b", cmd) and not shutil.which("cmake"):
                why = "no cmake"
            elif not have_cuda and (re.search(CUDA_CMD, cmd) or any(
                    re.search(r"\b(?:nvcc|ptxas)\b", e) for e in expected)):
                why = "no CUDA toolkit"
            if why:
                unmade |= written_by(cmd)
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
                new = abridge(expected, actual) if update else None
                if new is not None:
                    edits.append((first, end, new))
                elif update:
                    print("    (cut in several places: update it by hand)")
                for d in difflib.unified_diff(expected, actual, page, "actual", lineterm="", n=1):
                    print("    " + d)
    if update and edits:
        lines = text.split("\n")
        for first, end, new in sorted(edits, reverse=True):
            lines[first:end] = new
        path = os.path.join(root, page)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        os.replace(path + ".tmp", path)
        print(f"updated {len(edits)} samples in {page}")
    return equal, differ, skipped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", metavar="FILE", help="check this one page (default: README.md and docs/*.md)")
    ap.add_argument("--root", default=".")
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    if args.readme:
        pages = [args.readme]
    else:
        pages = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs"))
                                       if f.endswith(".md"))
    have_cuda = shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/local/cuda/bin"
    env["LC_ALL"] = "C"
    # samples run as from a shell, not as a recipe of make readme-check: a
    # make they start (a CMake build) would otherwise join that make's
    # jobserver and print "Entering directory"
    for v in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"):
        env.pop(v, None)
    equal = differ = skipped = bad = 0
    for page in pages:
        # each page in its own scratch directory: what one page's samples
        # write is not there for the next
        with tempfile.TemporaryDirectory(prefix="ptxray-readme-") as scratch:
            for d in LINKED:
                os.symlink(os.path.join(root, d), os.path.join(scratch, d))
            e, d, s = check_page(root, page, scratch, env, have_cuda, args.update)
        equal, differ, skipped = equal + e, differ + d, skipped + s
        with open(os.path.join(root, page), encoding="utf-8") as f:
            bad += check_links(root, page, f.read())
    print(f"samples in {len(pages)} page{'s' if len(pages) > 1 else ''}: {equal} equal, {differ} differ, "
          f"{skipped} skipped; {bad} broken link{'' if bad == 1 else 's'}")
    if args.update:
        return 1 if bad else 0
    return 1 if differ or bad else 0


if __name__ == "__main__":
    sys.exit(main())
