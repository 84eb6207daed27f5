#!/usr/bin/env bash
# Installs what ptxray needs to build and test, from Debian packages.
# ptxas/nvcc are not installed here: ptxray finds them on PATH or in
# /usr/local/cuda/bin, and the tests that need them are skipped without them.
# libgraphviz-dev: libgvc/libcgraph, which lay out and draw the HTML pages' CFGs
# in-process; chromium: the HTML page's test renders it headless (skipped
# without).
# libclang-dev (clang-c/Index.h and libclang.so under /usr/lib/llvm-14; the
# Makefile asks llvm-config-14 where that is when it is installed) is what
# `ptxray launches` parses host code with.  cmake builds the CUDA projects of
# tests/nvcc/ through `ptxray nvcc` (make check, docs/nvcc.md).
# libyaml-dev: the project file ptxray.yaml (report/config.c, docs/check.md).
set -euo pipefail
pkgs=(build-essential bison flex libjansson-dev libyaml-dev libelf-dev libzstd-dev liblz4-dev zlib1g-dev libcriterion-dev libiberty-dev graphviz libgraphviz-dev chromium clang libclang-rt-14-dev libclang-dev python3 python3-jsonschema gnuplot-nox cmake python3-pip)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# cuobjdump and nvdisasm (the SASS of the rewritten kernels in tests/nvcc/)
# are not in Debian: NVIDIA's PyPI wheels, only where nvcc is installed.
CUDA_TOOLS=${PTXRAY_CUDA_TOOLS:-/usr/local/lib/ptxray-cuda-tools}
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    if [ ! -x "$CUDA_TOOLS/nvidia/cu13/bin/cuobjdump" ] && ! command -v cuobjdump >/dev/null 2>&1; then
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo python3 -m pip install -q --no-deps --target "$CUDA_TOOLS" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm ||
            echo "setup: cuobjdump not installed: the SASS checks of tests/nvcc are skipped"
    fi
fi
bison --version | head -n 1
flex --version
