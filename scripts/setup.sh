#!/usr/bin/env bash
# Installs what ptxray needs to build and test, from Debian packages.
# ptxas/nvcc are not installed here: ptxray finds them on PATH or in
# /usr/local/cuda/bin, and the tests that need them are skipped without them.
# libgraphviz-dev: libgvc/libcgraph, which lay out and draw the HTML pages' CFGs
# in-process; chromium: the HTML page's test renders it headless (skipped
# without).
# libclang-dev (clang-c/Index.h and libclang.so under /usr/lib/llvm-14; the
# Makefile asks llvm-config-14 where that is when it is installed) is what
# `ptxray launches` parses host code with.
set -euo pipefail
pkgs=(build-essential bison flex libjansson-dev libcriterion-dev libiberty-dev graphviz libgraphviz-dev chromium clang libclang-rt-14-dev libclang-dev python3 python3-jsonschema gnuplot-nox)
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
bison --version | head -n 1
flex --version
