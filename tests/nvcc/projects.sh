#!/usr/bin/env bash
# The CUDA projects of tests/nvcc built through `ptxray nvcc` (docs/nvcc.md;
# make check runs it, make bench times it):
#   projects.sh PTXRAY WORKDIR          check: CMake and Make projects
#   projects.sh PTXRAY WORKDIR --bench  the CMake project's build time, plain and wrapped
# check, for each project: a plain build, then the same build in the same
# directory through the wrapper (exit 0, outputs byte-identical modulo
# nvcc's temporary-file names: same.py, the expected warning at its .cu
# line), a rebuild after touching the header (the depfiles), and a build
# with PTXRAY_FLAGS asking for a rewrite (the rewrite lines, the rewritten
# kernel's shared slots in cuobjdump's SASS, the executable linked).
# Skipped (exit 0, said so) without nvcc or cmake.
set -uo pipefail
P=$(realpath "$1")
W=$2
MODE=${3:-check}
SRC=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC_PATH:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
say() { echo "projects.sh: $*"; }
fail() { say "FAIL: $*"; exit 1; }
[ -x "$NVCC" ] || { say "nvcc not found: skipped"; exit 0; }
command -v cmake >/dev/null || { say "cmake not found (scripts/setup.sh): skipped"; exit 0; }
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump \
    ${PTXRAY_CUDA_TOOLS:-/usr/local/lib/ptxray-cuda-tools}/nvidia/cu*/bin/cuobjdump 2>/dev/null | head -n 1)
unset PTXRAY_FLAGS
rm -rf "$W" && mkdir -p "$W" || exit 1
W=$(cd "$W" && pwd)

expect_line() { grep -n "ptxray-expect: $2" "$1" | cut -d: -f1; }

# ---- CMake: CMAKE_CUDA_COMPILER_LAUNCHER="ptxray;nvcc" ----
CM=$W/cmake
cp -r "$SRC/cmake-proj" "$CM-src"
cmake_build() { # LOG [launcher]: configures and builds $CM from scratch
    rm -rf "$CM"
    local launch=()
    [ "${2:-}" ] && launch=("-DCMAKE_CUDA_COMPILER_LAUNCHER=$P;nvcc")
    cmake -S "$CM-src" -B "$CM" -DCMAKE_CUDA_COMPILER="$NVCC" "${launch[@]}" > "$1" 2>&1 || return 1
    # wall seconds and the CPU seconds (user + sys) of every process of the build
    python3 - "$1" "$CM" <<'PY' || return 1
import resource, subprocess, sys, time
t0 = time.time()
with open(sys.argv[1], "a") as log:
    rc = subprocess.call(["cmake", "--build", sys.argv[2], "--", "VERBOSE=1"], stdout=log, stderr=subprocess.STDOUT)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1] + ".time", "w").write("%.2f %.2f\n" % (time.time() - t0, r.ru_utime + r.ru_stime))
sys.exit(rc)
PY
}

if [ "$MODE" = --bench ]; then
    # the build alone (configure excluded), best of two, each from scratch
    # alternately, so that a change in the machine's load touches both
    for rep in 1 2; do
        for kind in plain wrapped; do
            cmake_build "$W/bench-$kind.log" $([ $kind = wrapped ] && echo 1) || fail "$kind build: see $W/bench-$kind.log"
            cat "$W/bench-$kind.log.time" >> "$W/bench-$kind.times"
        done
    done
    python3 - "$W" <<'PY'
import sys
best = {}
for kind in ("plain", "wrapped"):
    rows = [tuple(map(float, l.split())) for l in open(f"{sys.argv[1]}/bench-{kind}.times")]
    best[kind] = (min(r[0] for r in rows), min(r[1] for r in rows))
print("ptxray nvcc overhead, default mode (CMake project of tests/nvcc: 3 .cu files, sm_80 + sm_90; the build")
print("without the configure step, best of 2 each):")
print("                      wall s    CPU s (user+sys, all processes)")
for kind, name in (("plain", "plain nvcc"), ("wrapped", "through ptxray nvcc")):
    print(f"  {name:20s} {best[kind][0]:7.2f}  {best[kind][1]:7.2f}")
p, w = best["plain"], best["wrapped"]
print(f"  overhead             {100 * (w[0] - p[0]) / p[0]:+6.0f}%  {100 * (w[1] - p[1]) / p[1]:+6.0f}%")
PY
    exit 0
fi

OUTS=(.o .a =app)
cmake_build "$W/cmake-plain.log" || fail "plain CMake build: see $W/cmake-plain.log"
cp -r "$CM" "$W/cmake-plain"
cmake_build "$W/cmake-wrap.log" 1 || fail "CMake build through the launcher: see $W/cmake-wrap.log"
grep -q "ptxray nvcc $NVCC " "$W/cmake-wrap.log" || fail "the launcher was not used (cmake-wrap.log)"
python3 "$SRC/same.py" "$W/cmake-plain" "$CM" "${OUTS[@]}" || fail "CMake outputs differ from a plain build"
L=$(expect_line "$CM-src/scale.cu" uncoalesced)
grep -E "^$CM-src/scale.cu:$L:[0-9]+: warning: .*\[ptxray-uncoalesced\]$" "$W/cmake-wrap.log" ||
    fail "no uncoalesced warning at scale.cu:$L (cmake-wrap.log)"
grep -q "kern.h" "$CM/CMakeFiles/kern.dir/scale.cu.o.d" || fail "scale.cu.o.d does not name kern.h"
cmake --build "$CM" > "$W/cmake-again.log" 2>&1 || fail "CMake rebuild"
grep -q "Building CUDA object" "$W/cmake-again.log" && fail "a rebuild with nothing changed compiled again"
sleep 1 && touch "$CM-src/kern.h"
cmake --build "$CM" > "$W/cmake-touch.log" 2>&1 || fail "CMake rebuild after touching kern.h: see cmake-touch.log"
for o in scale.cu.o heavy.cu.o main.cu.o; do
    grep -q "Building CUDA object .*/$o" "$W/cmake-touch.log" || fail "$o not rebuilt after touching kern.h"
done
say "cmake: plain and wrapped builds identical, warning at scale.cu:$L, rebuilt after touching kern.h"

rm -rf "$CM"
cmake -S "$CM-src" -B "$CM" -DCMAKE_CUDA_COMPILER="$NVCC" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$P;nvcc" > "$W/cmake-rw.log" 2>&1 &&
    PTXRAY_FLAGS="--ptxray-budget=8" cmake --build "$CM" >> "$W/cmake-rw.log" 2>&1 || fail "CMake build with a rewrite"
[ -x "$CM/app" ] || fail "no executable after the rewrite build"
for a in sm_80 sm_90; do
    grep -E "^ptxray: .*heavy.cu \($a\): kernel heavy_kernel\(float\*, float const\*, int\): aff at budget 8: [0-9]+ values moved .*; ptxas spill bytes [0-9]+ -> [0-9]+$" \
        "$W/cmake-rw.log" || fail "no rewrite line for heavy_kernel ($a)"
done
if [ -n "$CUOBJDUMP" ]; then
    export PATH=$(dirname "$CUOBJDUMP"):$PATH
    usage() { "$CUOBJDUMP" -res-usage "$1" 2>&1 | grep -A1 "heavy_kernel" | grep -o "SHARED:[0-9]*" | sort -u; }
    [ "$(usage "$W/cmake-plain/CMakeFiles/kern.dir/heavy.cu.o")" = "SHARED:0" ] || fail "plain heavy_kernel uses shared memory"
    usage "$CM/CMakeFiles/kern.dir/heavy.cu.o" | grep -qv "SHARED:0" || fail "rewritten heavy_kernel has no shared slots"
    # STS/LDS in heavy_kernel's SASS (each architecture's), in the linked executable
    sts() { "$CUOBJDUMP" -sass "$1" | awk '/Function : /{on = /heavy_kernel/} on && /[ \t](STS|LDS)(\.[0-9]+)? /{n++} END{print n + 0}'; }
    n=$(sts "$CM/app") n0=$(sts "$W/cmake-plain/app")
    [ "$n" -gt 0 ] && [ "$n0" = 0 ] || fail "heavy_kernel's SASS in app: $n STS/LDS, plain $n0"
    say "cmake: rewrite: heavy_kernel's SASS in app has $n STS/LDS (plain build: $n0)"
else
    say "cuobjdump not found (scripts/setup.sh): the SASS check is skipped"
fi

# ---- Make: NVCC := ptxray nvcc ----
MK=$W/make
cp -r "$SRC/make-proj" "$MK"
MOUTS=(.o .cubin .fatbin .ptx =app)
make -C "$MK" NVCC="$NVCC" > "$W/make-plain.log" 2>&1 || fail "plain Make build: see make-plain.log"
mkdir -p "$W/make-plain" && cp "$MK"/*.o "$MK"/app "$MK"/vec.cubin "$MK"/vec.fatbin "$MK"/vec.ptx "$W/make-plain/"
make -C "$MK" clean > /dev/null
make -C "$MK" NVCC="$P nvcc" > "$W/make-wrap.log" 2>&1 || fail "Make build through ptxray nvcc: see make-wrap.log"
python3 "$SRC/same.py" "$W/make-plain" "$MK" "${MOUTS[@]}" || fail "Make outputs differ from a plain build"
L=$(expect_line "$MK/vec.cu" bank-conflict)
# make -C runs nvcc in the project's directory on "vec.cu": the warning names
# it as nvcc's own messages do, relative (CMake passes absolute paths)
grep -E "^vec.cu:$L:[0-9]+: warning: .*\[ptxray-bank-conflict\]$" "$W/make-wrap.log" ||
    fail "no bank-conflict warning at vec.cu:$L (make-wrap.log)"
sleep 1 && touch "$MK/vec.h"
make -C "$MK" NVCC="$P nvcc" > "$W/make-touch.log" 2>&1 || fail "Make rebuild after touching vec.h"
grep -q -- "-MF vec.d -MT vec.o vec.cu -o vec.o" "$W/make-touch.log" || fail "vec.o not rebuilt after touching vec.h"
make -C "$MK" clean > /dev/null
PTXRAY_FLAGS="--ptxray-budget=8" make -C "$MK" NVCC="$P nvcc" app > "$W/make-rw.log" 2>&1 || fail "Make build with a rewrite"
[ -x "$MK/app" ] || fail "no executable after the Make rewrite build"
grep -E "^ptxray: vec\.cu \(sm_[89]0\): kernel .*: aff at budget 8: " "$W/make-rw.log" || fail "no rewrite line (make-rw.log)"
cmp -s "$MK/vec.o" "$W/make-plain/vec.o" && fail "the rewrite left vec.o as it was"
say "make: plain and wrapped builds identical, warning at vec.cu:$L, rebuilt after touching vec.h, rewrite linked"
say "passed"
