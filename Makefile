# ptxray build.  `make` builds bin/ptxray; see `make help`.
CC      ?= cc
BISON   ?= bison
FLEX    ?= flex
PREFIX  ?= /usr/local

WARN    := -Wall -Wextra -Werror
STD     := -std=c11 -D_POSIX_C_SOURCE=200809L
OPT     ?= -O2 -g
# hostcode/ (the host-code front end: libclang) uses no other module.
MODULES := fatbin ptxparse names hostcode cfg ssa analyses regalloc emu toolchain report cli

# Two build trees: release (bin/ptxray, make test, make bench) and asan
# (make check: AddressSanitizer + UndefinedBehaviorSanitizer).
B       ?= build/rel
SANFLAGS ?=
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

GEN     := $(B)/gen
INC     := -Iptxparse -I$(GEN) $(foreach m,$(MODULES),-I$(m))
CFLAGS_ALL = $(STD) $(WARN) $(OPT) $(SANFLAGS) $(INC) $(CFLAGS)
# flex/bison output: same warnings, minus the ones their skeletons trip.
GENFLAGS = $(CFLAGS_ALL) -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter

LIB_SRC := $(filter-out cli/main.c,$(foreach m,$(MODULES),$(wildcard $(m)/*.c)))
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(GEN)/parser.o $(GEN)/lexer.o
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(TEST_SRC))
# the kernel generator and the differential oracles (fuzz/gen, fuzz/diff;
# make difftest, tests/test_difftest.c).  Their headers sit two levels down,
# out of the library objects' */*.h dependency.
FUZZ_LIB_OBJ := $(B)/obj/fuzz/gen/fzgen.o $(B)/obj/fuzz/diff/oracles.o
$(B)/obj/fuzz/%.o $(B)/obj/tests/test_difftest.o: CFLAGS += -Ifuzz/diff -Ifuzz/gen

JANSSON_LIBS := -ljansson
# libclang (Debian libclang-dev) for hostcode/: `ptxray launches` and the
# launch shapes of `analyze FILE.cu`.  Without it ptxray still builds, and
# those say that it was built without libclang.
LLVM_CONFIG ?= $(firstword $(shell command -v llvm-config-14 llvm-config 2>/dev/null))
LLVM_DIR ?= $(if $(LLVM_CONFIG),$(shell $(LLVM_CONFIG) --prefix),/usr/lib/llvm-14)
ifneq ($(wildcard $(LLVM_DIR)/include/clang-c/Index.h),)
# Not linked: hostcode/clang_dl.c loads it when host code is first read
# (linking it costs every ptxray process 0.1 s and ~55 MB at start).
CLANG_CFLAGS := -I$(LLVM_DIR)/include -DHC_LIBCLANG='"$(realpath $(LLVM_DIR)/lib/libclang.so)"'
CLANG_LIBS := -ldl
else
$(warning libclang not found under $(LLVM_DIR) (install libclang-dev: make deps); building without `ptxray launches`)
CLANG_CFLAGS := -DPTXRAY_NO_LIBCLANG
CLANG_LIBS :=
endif
# libiberty: the C++ demangler (names/names.c)
# libelf, libzstd, liblz4: PTX read out of binaries (fatbin/: ELF and ar, zstd and LZ4 entries)
# libgvc/libcgraph (Debian libgraphviz-dev): the HTML pages' CFGs (report/html_svg.c)
# (its dot layout and SVG renderer linked in: html_svg.c registers them itself)
GV_PLUGINS := /usr/lib/x86_64-linux-gnu/graphviz
GV_LIBS := -L$(GV_PLUGINS) -Wl,-rpath,$(GV_PLUGINS) -lgvplugin_dot_layout -lgvplugin_core -lgvc -lcgraph -lcdt
# libyaml (Debian libyaml-dev): the project file ptxray.yaml (report/config.c)
# -pthread: the parallel batches (report/batch.c)
LDLIBS  := $(JANSSON_LIBS) -lyaml $(CLANG_LIBS) -liberty $(GV_LIBS) -lelf -lzstd -llz4 -lz -lm -pthread

.PHONY: divbench-instr form-sweep gpu-counters-check gpu-prepare gpurun-build readme-check readme-update all test check bench fuzz fuzz-smoke install deps clean help corpus-check golden-coalescing coalescing-compare \
        shapecheck synccheck-corpus layers validity validity-smoke precision regalloc-its target-bench nvcc-projects nvcc-bench \
        difftest difftest-smoke fuzz-all fuzz-fatbin fuzz-seeds fuzzlib
all: bin/ptxray

help:
	@echo "make            build bin/ptxray"
	@echo "make deps       install build/test dependencies (Debian packages)"
	@echo "make test       build and run the test suite"
	@echo "make check      the test suite under ASan+UBSan, plus a short fuzz run"
	@echo "make layers     every module includes only the headers of the modules below it (docs/architecture.md)"
	@echo "make bench      parse throughput and peak memory on the corpus and a 100 MB file, check speed"
	@echo "make divbench-instr the warp forms' cost vs polynomials only, in callgrind instructions (needs valgrind)"
	@echo "make target-bench regalloc --target-regs 24 and 32 vs ptxas alone over ptx-corpus/sm_80: per-file"
	@echo "                spill bytes and the geometric mean (target <= 0.70; needs ptxas)"
	@echo "make fuzz       libFuzzer target (clang), runs until stopped (FUZZ_TIME=s)"
	@echo "make fuzz-all   every libFuzzer target (parse, analyses, regalloc, emu, launches, fatbin) FUZZ_TIME s each"
	@echo "make fuzz-fatbin  the fatbin reader (binaries: ELF, ar, fatbin containers, zstd/LZ4); also make fuzz FUZZ_TARGET=fatbin"
	@echo "make difftest N=n  n generated kernels through every analysis and rewrite against the emulator"
	@echo "                (docs/testing.md); difftest-smoke: 10 under the sanitizers (make check)"
	@echo "make validity   ptxray's accept/reject decision vs ptxas on 1,000 corpus mutants (issue 14)"
	@echo "make nvcc-projects  the CMake and Make CUDA projects of tests/nvcc through ptxray nvcc (make check)"
	@echo "make gpu-counters-check the emulator's global sectors against an H100's counters (make check)"
	@echo "make readme-check the shell samples of README.md and docs/*.md run again and compared with their output; links checked (make check)"
	@echo "make install    install bin/ptxray under PREFIX ($(PREFIX))"
	@echo "make golden-coalescing  rewrite tests/golden/coalescing/ (review the diff)"
	@echo "make coalescing-compare static coalescing model vs the emulator over the corpus launches:"
	@echo "                build/coalescing-compare.txt, printed (docs/coalescing-compare.md)"
	@echo "make precision  check's coalescing and bank-conflict findings against the emulator over the corpus"
	@echo "                launches: build/precision.txt, printed (docs/check.md, Precision)"
	@echo "make regalloc-its every corpus test launch with the kernel rewritten by regalloc (budgets 8 12 16 24 32"
	@echo "                x linear/div/aff) under --schedule its, 20 seeds each, against the original's output"
	@echo "make gpu-prepare the regalloc rewrites and emulator outputs that bench/gpu/device.sh runs on a GPU"
	@echo "                (docs/gpu-check.md)"
	@echo "make shapecheck the divergence analyses against the emulator at six block shapes over the corpus"
	@echo "                launches, all three analyses, with the figures (docs/emulator.md)"
	@echo "make synccheck-corpus run --synccheck over the corpus launches at the six shapes of shapecheck,"
	@echo "                lockstep and its: every report, and their count (docs/emulator.md)"

deps:
	bash scripts/setup.sh

$(GEN)/parser.h: $(GEN)/parser.c
$(GEN)/parser.c: ptxparse/parser.y
	@mkdir -p $(GEN)
	$(BISON) -Wall -Werror --defines=$(GEN)/parser.h -o $(GEN)/parser.c $<

# The scanner must never back up (its loop then skips a test per byte):
# flex's report says so, or the build stops and shows it.
$(GEN)/lexer.c: ptxparse/lexer.l
	@mkdir -p $(GEN)
	$(FLEX) -Cf --backup-file=$(GEN)/lex.backup -o $@ $<
	@grep -q '^No backing up' $(GEN)/lex.backup || { cat $(GEN)/lex.backup; rm -f $@; exit 1; }

$(GEN)/parser.o: $(GEN)/parser.c ptxparse/build.h ptxparse/ir.h
	$(CC) $(GENFLAGS) -c -o $@ $<

$(GEN)/lexer.o: $(GEN)/lexer.c $(GEN)/parser.h ptxparse/build.h ptxparse/ir.h
	$(CC) $(GENFLAGS) -c -o $@ $<

$(B)/obj/%.o: %.c $(GEN)/parser.h $(wildcard */*.h) ptxparse/isa.def
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(B)/obj/hostcode/%.o: CFLAGS += $(CLANG_CFLAGS)

# The emulator's instruction handlers are lane loops over 32 values: -O3
# lets GCC vectorise them (with run-time alias checks) on baseline x86-64.
$(B)/obj/emu/exec_%.o: CFLAGS += -O3
# The validator compiles the instruction-form tables in.
$(B)/obj/ptxparse/validate.o: ptxparse/isa.def ptxparse/cvt_forms.def

# The warp forms' rules are loops over the 32 lanes too (and their callers in
# warp_rules/warp_sym/warp_iv gain from -O3 as well: 0.3M of 94M instructions;
# affine_rules, the family rules inlined in three copies: 0.47M of 81M).
WARP_O3 = warp_form warp_cmp warp_rules warp_sym warp_iv affine_rules
$(patsubst %,$(B)/obj/analyses/%.o,$(WARP_O3)): CFLAGS += -O3
# The affine solver's loops over a value's 15 coefficients: -O3 vectorises
# them (-O2's cost model leaves a loop of 15 scalar).
$(B)/obj/analyses/affine.o $(B)/obj/analyses/aff_poly.o: CFLAGS += -O3

$(B)/libptxray.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/ptxray: $(B)/obj/cli/main.o $(B)/libptxray.a
	$(CC) $(OPT) $(SANFLAGS) -o $@ $^ $(LDLIBS)

bin/ptxray: $(B)/ptxray
	@mkdir -p bin
	cp $< $@

$(B)/ptxray-tests: $(TEST_OBJ) $(FUZZ_LIB_OBJ) $(B)/libptxray.a
	$(CC) $(OPT) $(SANFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

# The tests find the binary under test and the corpus through the environment.
TEST_ENV = PTXRAY_BIN=$(abspath $(B)/ptxray) PTXRAY_SRC=$(abspath .)
test: $(B)/ptxray $(B)/ptxray-tests bin/ptxray layers
	$(TEST_ENV) $(B)/ptxray-tests $(TEST_ARGS)

# LeakSanitizer's options for every run under ASan. use_tls=0: LSan's tracer
# crashes (signal 11, "LeakSanitizer has encountered a fatal error") scanning
# a bogus dynamic-TLS range libLLVM leaves once libclang is loaded; with TLS
# no longer scanned as roots LSan can only report more leaks, never fewer.
LSAN_OPTS = suppressions=$(abspath tests/lsan.supp):print_suppressions=0:use_tls=0

check: layers
	$(MAKE) B=build/asan OPT="-O1 -g" SANFLAGS="$(ASAN_FLAGS)" build/asan/ptxray build/asan/ptxray-tests
	$(MAKE) fuzz-smoke
	$(MAKE) difftest-smoke
	$(MAKE) validity-smoke
	$(MAKE) gpurun-build
	$(MAKE) gpu-counters-check
	$(MAKE) nvcc-projects PTXRAY_NVCC_BIN=build/asan/ptxray
	$(MAKE) readme-check
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=$(LSAN_OPTS) \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    PTXRAY_BIN=$(abspath build/asan/ptxray) PTXRAY_SRC=$(abspath .) build/asan/ptxray-tests $(TEST_ARGS)

# The shell samples of README.md and docs/*.md run again and compared with
# what they print, and the pages' links checked (scripts/readme_samples.py;
# make check): the README and the docs show real output.
# readme-update writes the actual output into the samples that differ.
readme-check: bin/ptxray
	python3 scripts/readme_samples.py
readme-update: bin/ptxray
	python3 scripts/readme_samples.py --update

# The CUDA projects of tests/nvcc (a CMake one with CMAKE_CUDA_COMPILER_LAUNCHER
# and a Make one with NVCC := ptxray nvcc) built plain and through the
# wrapper: identical outputs, the warnings at their .cu lines, a depfile
# rebuild, a rewrite that links (docs/nvcc.md).  Skipped without nvcc/cmake.
PTXRAY_NVCC_BIN ?= $(B)/ptxray
nvcc-projects: $(PTXRAY_NVCC_BIN)
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=$(LSAN_OPTS) \
	    bash tests/nvcc/projects.sh $(PTXRAY_NVCC_BIN) build/nvcc-projects

# The CMake project's build time with plain nvcc and through ptxray nvcc.
nvcc-bench: $(B)/ptxray
	bash tests/nvcc/projects.sh $(B)/ptxray build/nvcc-bench --bench

# MODULES is also the layering: each includes only those before it.
layers:
	@bash scripts/check-layers.sh $(MODULES)

# Rewrites tests/golden/coalescing/*.json from the current binary: review the
# diff by hand before committing it.
golden-coalescing: $(B)/ptxray $(B)/ptxray-tests
	PTXRAY_REGEN_GOLDEN=1 $(TEST_ENV) $(B)/ptxray-tests --filter 'coalescing_golden/*'

# The static coalescing model against the emulator's --coalescing figures
# over every corpus test launch; writes build/coalescing-compare.txt.
coalescing-compare: $(B)/ptxray $(B)/ptxray-tests
	PTXRAY_COALCMP_PRINT=1 PTXRAY_COALCMP_SHAPES=all $(TEST_ENV) $(B)/ptxray-tests --filter 'emu_coalcmp/*'

# check's findings (proven and possible) at each corpus test launch's block
# shape against the emulator's sector and wavefront counts; every proven
# finding must be confirmed.  Writes build/precision.txt (docs/check.md).
precision: $(B)/ptxray $(B)/ptxray-tests
	PTXRAY_PRECISION_PRINT=1 $(TEST_ENV) $(B)/ptxray-tests --filter 'emu_coalcmp/corpus' | \
	    sed -n '/^precision:/,$$p'

# Every corpus test launch relaunched at six block shapes with the divergence
# claims checked, all three analyses (make test and make check: affine), and
# the figures per shape (docs/emulator.md, "Block shapes").
shapecheck: $(B)/ptxray $(B)/ptxray-tests
	PTXRAY_SHAPES_ANALYSES=all PTXRAY_SHAPES_PRINT=1 $(TEST_ENV) $(B)/ptxray-tests --filter 'emu_shapes/*'

# run --synccheck's rules over the corpus launches at the six shapes of
# shapecheck, lockstep and ITS: every report and their count (issue 36,
# tests/test_synccheck.c).
synccheck-corpus: $(B)/ptxray $(B)/ptxray-tests
	PTXRAY_SYNCCHECK_CORPUS=1 $(TEST_ENV) $(B)/ptxray-tests --filter 'synccheck/corpus'

# The allocator's rewrites under the adversarial ITS schedule: every corpus
# test launch again with the kernel rewritten at budgets 8 12 16 24 32 in
# the three modes, 20 seeds each, compared with the original's global
# memory (tests/test_regalloc_its.c; make test/check run a sample).
regalloc-its: $(B)/ptxray $(B)/ptxray-tests
	PTXRAY_RA_ITS=all $(TEST_ENV) $(B)/ptxray-tests --filter 'regalloc_its/corpus'

# ptxray's accept/reject decision against ptxas's on single-token mutants of
# the corpus (fuzz/validity.py, issue 14): 1,000 mutants, agreement >= 99%.
# validity-smoke (make check): a fixed-seed sample of 200 under the sanitizers
# (a crash fails it); skipped where ptxas is missing.
PTXAS ?= $(firstword $(shell command -v ptxas 2>/dev/null) /usr/local/cuda/bin/ptxas)
VALIDITY_N ?= 1000
validity: $(B)/ptxray
	python3 fuzz/validity.py --ptxray $(B)/ptxray --ptxas $(PTXAS) --n $(VALIDITY_N) --seed 1

# The arithmetic modifiers' combinations against ptxas (fuzz/formsweep.py):
# 3,240 forms at sm_80, and 4,320 at sm_100a with the packed .f32x2,
# .s16x2 and .u16x2; every verdict must agree; about 2 minutes.
form-sweep: $(B)/ptxray
	python3 fuzz/formsweep.py --ptxray $(B)/ptxray --ptxas $(PTXAS)
	python3 fuzz/formsweep.py --ptxray $(B)/ptxray --ptxas $(PTXAS) --target sm_100a --version 8.6 \
	    --types f16,bf16,f16x2,bf16x2,f32,f64,s32,u32,s64,f32x2,s16x2,u16x2

validity-smoke:
	@mkdir -p build
	@if [ ! -x "$(PTXAS)" ]; then echo "validity-smoke: ptxas not found: skipped"; \
	elif ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=$(LSAN_OPTS) \
	    python3 fuzz/validity.py --ptxray build/asan/ptxray --ptxas $(PTXAS) --n 200 --seed 14 \
	    > build/validity-smoke.log 2>&1; then tail -n 1 build/validity-smoke.log; \
	else tail -n 30 build/validity-smoke.log; echo "validity-smoke: FAILED (see build/validity-smoke.log)"; exit 1; fi

# ---- benchmark ----
$(B)/ptxray-bench: bench/bench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-cfgbench: bench/cfgbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-divbench: bench/divbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-emubench: bench/emubench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-costbench: bench/costbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-checkbench: bench/checkbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

# a driver of bin/ptxray and ptxas (child processes): no library
$(B)/ptxray-batchbench: bench/batchbench.c
	$(CC) $(CFLAGS_ALL) -o $@ $<

$(B)/ptxray-rabench: bench/rabench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-hostbench: bench/hostbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-htmlbench: bench/htmlbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxray-targetbench: bench/targetbench.c $(B)/libptxray.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(B)/ptxgen: bench/ptxgen.c
	$(CC) $(CFLAGS_ALL) -o $@ $<

bench: $(B)/ptxray-bench $(B)/ptxgen $(B)/ptxray-cfgbench $(B)/ptxray-divbench $(B)/ptxray-emubench \
       $(B)/ptxray-checkbench $(B)/ptxray-rabench $(B)/ptxray-hostbench $(B)/ptxray-htmlbench \
       $(B)/ptxray-batchbench $(B)/ptxray-costbench $(B)/ptxray
	@mkdir -p build/bench
	@test -s build/bench/gen-100mb.ptx || $(B)/ptxgen 105000000 > build/bench/gen-100mb.ptx
	$(B)/ptxray-bench ptx-corpus build/bench/gen-100mb.ptx
	$(B)/ptxray-cfgbench ptx-corpus 100000
	-$(B)/ptxray-divbench 1000000 ptx-corpus  # prints MISSED for a missed target; the other benchmarks still run
	$(B)/ptxray-emubench ptx-corpus
	$(B)/ptxray-checkbench ptx-corpus
	$(B)/ptxray-batchbench $(B)/ptxray ptx-corpus build/bench/batch 20  # check -j 1 and -j all cores vs ptxas, MB/s and ratio
	-$(B)/ptxray-hostbench build/bench/host-2000.cu  # `launches` on a generated 2,000-line host file; MISSED over 1 s
	$(B)/ptxray-rabench ptx-corpus
	-$(B)/ptxray-costbench $(B)/ptxray ptx-corpus build/bench  # check's analysis/parse; 100k-block time and peak RSS (FAIL lines for missed targets)
	$(MAKE) nvcc-bench
	$(B)/ptxray-htmlbench ptx-corpus
	-$(MAKE) target-bench

# The warp forms' cost line of ptxray-divbench in callgrind instructions
# (one mode a run, inside div_analyse only): exact on a loaded machine.
divbench-instr: $(B)/ptxray-divbench
	bash scripts/divbench-instr.sh $(B)/ptxray-divbench ptx-corpus

# --target-regs 24 and 32 against ptxas alone over the sm_80 corpus: the
# per-file table and the geometric mean (issue 15's target: <= 0.70).
# Needs ptxas; prints MISSED for a missed target (exit 1).
target-bench: $(B)/ptxray-targetbench
	@if [ ! -x "$(PTXAS)" ]; then echo "target-bench: ptxas not found: skipped"; \
	else $(B)/ptxray-targetbench ptx-corpus/sm_80 24 32; fi

# ---- original vs rewritten kernels on a real GPU (docs/gpu-check.md) ----
# gpu-prepare builds the rewrites and the emulator's outputs here (no GPU
# needed); bench/gpu/device.sh runs them on a machine with one.  gpurun
# builds against the driver API's stub library, so the harness is compiled
# wherever the CUDA headers are (make check builds it when they are).
CUDA_HOME ?= /usr/local/cuda
gpu-prepare: $(B)/ptxray
	PTXRAY=$(B)/ptxray bash bench/gpu/prepare.sh build/gpu

$(B)/gpurun: bench/gpu/gpurun.c emu/run_spec.c emu/fp.c emu/run_spec.h
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) -O2 -I$(CUDA_HOME)/include -Iemu -Iptxparse $(filter %.c,$^) \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -lm -o $@

# The emulator's global requests and sectors against the hardware counters
# an H100 gave for the same launches (bench/gpu/ncu.sh; docs/gpu-check.md,
# "Sectors and wavefronts on the hardware"); make check runs it.
gpu-counters-check: bin/ptxray
	python3 bench/gpu/ncu_compare.py bin/ptxray bench/gpu/gpu.launches bench/gpu/results/ncu-h100-20261126.csv

gpurun-build:
	@if [ -f "$(CUDA_HOME)/include/cuda.h" ]; then $(MAKE) --no-print-directory $(B)/gpurun; \
	else echo "gpurun: $(CUDA_HOME)/include/cuda.h not found: not built"; fi

# ---- differential tests of generated kernels (docs/testing.md) ----
# fuzz/gen/ makes random valid kernels from seeds; fuzz/diff/oracles.c holds each
# analysis and rewrite against the emulator.  make difftest N=... runs seeds
# 1..N (DIFFTEST_ARGS: -s FIRST, --budgets, --ptxas-every K); difftest-smoke
# (make check) a fixed sample under the sanitizers.
N ?= 1000
DIFFTEST_ARGS ?=
$(B)/difftest: $(B)/obj/fuzz/diff/difftest.o $(FUZZ_LIB_OBJ) $(B)/libptxray.a
	$(CC) $(OPT) $(SANFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fzgen: $(B)/obj/fuzz/gen/fzgen_main.o $(B)/obj/fuzz/gen/fzgen.o
	$(CC) $(OPT) $(SANFLAGS) -o $@ $^
DIFFTEST_J ?= $(shell nproc 2>/dev/null || echo 1)
difftest: $(B)/difftest $(B)/fzgen
	nice $(B)/difftest -n $(N) -j $(DIFFTEST_J) $(DIFFTEST_ARGS)
DIFFTEST_SMOKE_N ?= 10
difftest-smoke:
	$(MAKE) B=build/asan OPT="-O1 -g" SANFLAGS="$(ASAN_FLAGS)" build/asan/difftest
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=$(LSAN_OPTS) \
	    build/asan/difftest -n $(DIFFTEST_SMOKE_N) -s 17 --budgets 8,16 --ptxas-every 5

# ---- fuzzing (clang + libFuzzer) ----
FUZZ_CC ?= clang
FUZZ_TIME ?= 0
FUZZ_FLAGS = $(STD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iptxparse -Icfg -Issa -Ibuild/fuzz/gen
FUZZ_SRC = ptxparse/*.c cfg/*.c ssa/*.c
build/fuzz/fuzz_parse: fuzz/fuzz_parse.c $(FUZZ_SRC) ptxparse/*.h cfg/*.h ssa/*.h ptxparse/parser.y ptxparse/lexer.l
	@mkdir -p build/fuzz/gen
	$(BISON) --defines=build/fuzz/gen/parser.h -o build/fuzz/gen/parser.c ptxparse/parser.y
	$(FLEX) -Cfe -o build/fuzz/gen/lexer.c ptxparse/lexer.l
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/fuzz_parse.c $(FUZZ_SRC) build/fuzz/gen/parser.c build/fuzz/gen/lexer.c

# make fuzz FUZZ_TARGET=fatbin: the fatbin reader instead (fuzz-fatbin)
FUZZ_TARGET ?= parse
ifeq ($(FUZZ_TARGET),fatbin)
fuzz: fuzz-fatbin
else
fuzz: build/fuzz/fuzz_parse
	@mkdir -p build/fuzz/corpus
	build/fuzz/fuzz_parse -max_len=65536 $(if $(filter-out 0,$(FUZZ_TIME)),-max_total_time=$(FUZZ_TIME)) \
	    -dict=fuzz/ptx.dict build/fuzz/corpus fuzz/seeds
endif

# A short run for `make check`: 20 s from the seeds, no saved corpus.  A
# crash, leak or failed check fails the target (the log's tail is shown).
fuzz-smoke: build/fuzz/fuzz_parse
	@mkdir -p build/fuzz/smoke
	@if build/fuzz/fuzz_parse -max_len=16384 -max_total_time=20 -print_final_stats=1 \
	    -dict=fuzz/ptx.dict build/fuzz/smoke fuzz/seeds > build/fuzz/smoke.log 2>&1; then \
	    tail -n 6 build/fuzz/smoke.log; \
	else \
	    tail -n 40 build/fuzz/smoke.log; echo "fuzz-smoke: FAILED (see build/fuzz/smoke.log)"; exit 1; \
	fi

# The fatbin reader alone (docs/binaries.md): make fuzz-fatbin FUZZ_TIME=N.
# It needs fatbin/ only (the bottom layer), so it is built from it alone.
build/fuzz/fuzz_fatbin: fuzz/fuzz_fatbin.c fatbin/fatbin.c fatbin/fatbin.h
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(STD) -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) -Ifatbin -o $@ fuzz/fuzz_fatbin.c fatbin/fatbin.c \
	    -lelf -lzstd -llz4
fuzz-fatbin: build/fuzz/fuzz_fatbin
	@mkdir -p build/fuzz/corpus-fatbin
	build/fuzz/fuzz_fatbin -max_len=65536 $(if $(filter-out 0,$(FUZZ_TIME)),-max_total_time=$(FUZZ_TIME)) \
	    -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 build/fuzz/corpus-fatbin fuzz/seeds-fatbin

# ---- every libFuzzer target (docs/testing.md): make fuzz-all FUZZ_TIME=N ----
# The library built once with clang and the fuzzer's coverage
# (build/fuzzlib), then one binary per target: fuzz_parse's own build above,
# fuzz_analyses (divergence, coalescing at random shapes), fuzz_regalloc
# (the rewrite re-parses and passes the SSA verifier), fuzz_emu (bounded
# launches, random shapes and schedules) and fuzz_launches (host code).
# Each runs FUZZ_TIME seconds (default 60) from fuzz/seeds and generated
# kernels; a crash, leak, timeout or failed check fails the target.
FUZZ_TARGETS := analyses regalloc emu launches fatbin
FUZZ_ALL_TIME = $(if $(filter-out 0,$(FUZZ_TIME)),$(FUZZ_TIME),60)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
fuzzlib:
	$(MAKE) B=build/fuzzlib CC=$(FUZZ_CC) WARN="-Wall -Wextra" OPT="-g -O1" \
	    SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" build/fuzzlib/libptxray.a
build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/common/fuzz_common.h fuzzlib
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(STD) -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) $(INC) $(CLANG_CFLAGS) -Ifuzz/common -o $@ $< \
	    build/fuzzlib/libptxray.a $(LDLIBS)
fuzz-seeds: $(B)/fzgen
	@mkdir -p build/fuzz/gen-seeds
	@for s in $$(seq 1 40); do $(B)/fzgen $$s > build/fuzz/gen-seeds/k$$s.ptx; done
fuzz-all: build/fuzz/fuzz_parse $(patsubst %,build/fuzz/fuzz_%,$(FUZZ_TARGETS)) fuzz-seeds
	@mkdir -p build/fuzz/logs
	@rc=0; for t in parse $(FUZZ_TARGETS); do \
	    mkdir -p build/fuzz/corpus-$$t; \
	    seeds="fuzz/seeds build/fuzz/gen-seeds"; [ $$t = launches ] && seeds="tests/nvcc"; \
	    [ $$t = fatbin ] && seeds="fuzz/seeds-fatbin"; \
	    if build/fuzz/fuzz_$$t -max_len=65536 -max_total_time=$(FUZZ_ALL_TIME) -timeout=30 -rss_limit_mb=4096 \
	        -print_final_stats=1 $$( [ $$t = launches ] || [ $$t = fatbin ] || echo -dict=fuzz/ptx.dict ) \
	        build/fuzz/corpus-$$t $$seeds > build/fuzz/logs/$$t.log 2>&1; then \
	        printf "fuzz_%-9s ok:  " $$t; grep -E "stat::number_of_executed_units|cov:" build/fuzz/logs/$$t.log | tail -2 | tr '\n' ' '; echo; \
	    else rc=1; echo "fuzz_$$t FAILED (build/fuzz/logs/$$t.log):"; tail -n 30 build/fuzz/logs/$$t.log; fi; \
	done; exit $$rc

install: bin/ptxray
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 bin/ptxray $(DESTDIR)$(PREFIX)/bin/ptxray

clean:
	rm -rf build bin
