# Makefile — builds libgemmkit (shared + static), the `gemmkit` CLI, the tests and benchmarks.
#
#   make            library + CLI (CUDA backend too when nvcc is found)
#   make bench      build, then benchmark this machine (CPU vs OpenBLAS/BLIS; GPU vs cuBLAS if any)
#                   into $(BUILD)/bench-results; BENCH_ARGS="--quick --out DIR" passes options
#   make test       build, then run every test; ends with "N passed, N failed, N skipped"
#                   (every core: -j$(nproc) unless -jN is given; tests two programs at a time)
#   make test SANITIZE=1   the same under ASan + UBSan (CPU only; build-san/)
#   make fuzz       the libFuzzer target over the entry points (tests/fuzz/fuzz.mk; clang)
#   make install PREFIX=/usr/local
#   make probes     the developer probes of bench/probe/ (bench/bench.mk), CUDA ones included
#
# Sources are found by wildcard, so adding a file needs no edit here. Per-file ISA flags follow
# the file name (tinyBLAS style: one kernel source per ISA, compiled with that ISA's flags):
#   *_avx2.c   -> -mavx2 -mfma        *_avx512.c -> -mavx512f ... (x86-64 only)

# Every core by default: a plain `make` or `make test` runs `nproc` jobs; -jN (-j1 for one) on the
# command line wins. GNU make 4.3 takes -j added to MAKEFLAGS here; sub-makes share the top
# level's jobs instead of adding their own.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

PREFIX ?= /usr/local
SANITIZE ?= 0
OPT ?= -O3
GK_CUDA ?= auto
CUDA_HOME ?= /usr/local/cuda
PYTHON ?= /usr/bin/python3
BENCH_ARGS ?=

ifeq ($(SANITIZE),1)
BUILD ?= build-san
GK_CUDA := 0
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build
SAN_FLAGS :=
endif
# Each program's full test output (tests/run.sh); the environment may point it elsewhere.
GK_TEST_LOG_DIR ?= $(BUILD)/test-logs

VERSION := 0.1.0
SOVERSION := 0
MACHINE := $(shell uname -m)

# ---- CUDA detection --------------------------------------------------------------------------
NVCC := $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
ifeq ($(GK_CUDA),auto)
HAVE_CUDA := $(if $(NVCC),1,0)
else
HAVE_CUDA := $(GK_CUDA)
endif

CPPFLAGS += -Iinclude -Isrc -D_GNU_SOURCE
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 -fPIC -fvisibility=hidden -Wall -Wextra $(SAN_FLAGS)
# Per-call overhead of tiny GEMMs (docs/cpu.md): calls between the library's own exported
# functions go direct instead of through the PLT, and thread-local storage (the error message)
# is reached by TLS descriptors instead of a __tls_get_addr call (still safe under dlopen).
CFLAGS += -fno-semantic-interposition
ifeq ($(MACHINE),x86_64)
CFLAGS += -mtls-dialect=gnu2
endif
# The library has no OpenMP in it (its threads are its own: src/core/parallel.c), so it links no
# OpenMP runtime; the programs around it (benchmarks, tests of nesting) do.
LIB_LDLIBS := -lm -ldl -lpthread $(SAN_FLAGS)
LDLIBS += -fopenmp -lm -ldl -lpthread $(SAN_FLAGS)

# Portable PTX + Ampere SASS for other GPUs, sm_90a SASS (wgmma/setmaxnreg) for Hopper.
CUDA_ARCH ?= -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a \
             -gencode=arch=compute_80,code=compute_80
NVCCFLAGS ?= -O3 -g -lineinfo
NVCCFLAGS += -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC,-fvisibility=hidden -DGK_HAVE_CUDA=1 \
             --expt-relaxed-constexpr -Xptxas -warn-spills
ifeq ($(HAVE_CUDA),1)
CPPFLAGS += -DGK_HAVE_CUDA=1 -I$(CUDA_HOME)/include
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -lstdc++
endif

# ---- sources ---------------------------------------------------------------------------------
LIB_C := $(wildcard src/core/*.c src/cpu/*.c src/cpu/*/*.c src/blas/*.c src/formats/*.c)
ifneq ($(MACHINE),x86_64)
LIB_C := $(filter-out %_avx2.c %_avx512.c,$(LIB_C))
endif
ifeq ($(HAVE_CUDA),1)
LIB_C := $(filter-out src/core/cuda_absent.c,$(LIB_C))
LIB_CU := $(shell find src/cuda -name '*.cu' 2>/dev/null | sort)
else
LIB_CU :=
endif
# The workshop around the library, each layer using only the ones below it:
#   tools/ (the CLI: parses, dispatches) -> bench/ (benchmark library, bench/bench.h)
#   -> harness/ (reference, accuracy rule, fill, timers, output) -> libgemmkit
# The C tests use harness/ too (through tests/common/). Their sources include each other's public
# headers by path from the repository root ("harness/harness.h", "bench/bench.h").
HARNESS_C := $(wildcard harness/*.c)
HARNESS_CU := $(if $(filter 1,$(HAVE_CUDA)),$(wildcard harness/*.cu))
BENCH_C := $(wildcard bench/*.c bench/cpu/*.c)
BENCH_CU := $(if $(filter 1,$(HAVE_CUDA)),$(wildcard bench/gpu/*.cu))
CLI_C := $(wildcard tools/*.c)
TEST_COMMON := $(wildcard tests/common/*.c)
TEST_C := $(wildcard tests/*/test_*.c)
TEST_CU := $(if $(filter 1,$(HAVE_CUDA)),$(wildcard tests/*/test_*.cu))
TEST_SCRIPTS := $(sort $(wildcard tests/*/test_*.sh tests/*/test_*.py))

obj = $(patsubst %,$(BUILD)/obj/%.o,$(1))
LIB_OBJ := $(call obj,$(LIB_C) $(LIB_CU))
HARNESS_OBJ := $(call obj,$(HARNESS_C))
HARNESS_CU_OBJ := $(call obj,$(HARNESS_CU))
BENCH_OBJ := $(call obj,$(BENCH_C) $(BENCH_CU))
CLI_OBJ := $(call obj,$(CLI_C))
TEST_COMMON_OBJ := $(call obj,$(TEST_COMMON))
TEST_BINS := $(patsubst tests/%,$(BUILD)/tests/%,$(basename $(TEST_C) $(TEST_CU)))

SHLIB := $(BUILD)/lib/libgemmkit.so.$(VERSION)
STLIB := $(BUILD)/lib/libgemmkit.a
CLI := $(BUILD)/bin/gemmkit

.PHONY: all lib cli tests test bench deps install uninstall clean format help
# Keep test objects: they are intermediate files of the test binaries, and deleting them would
# rebuild every test on each `make test`.
.SECONDARY:
all: lib cli
lib: $(SHLIB) $(STLIB)
cli: $(CLI)
tests: $(TEST_BINS)

help:
	@sed -n '2,16p' Makefile

# ---- flags stamps ----------------------------------------------------------------------------
# Every object depends on a file holding the flags it was compiled with (one for C, one for CUDA),
# rewritten only when they change, so that `make GK_CUDA=0` then `make` (or another OPT or
# CFLAGS) in the same build directory recompiles instead of linking objects built for the other
# configuration (a CLI object compiled without -DGK_HAVE_CUDA defines stubs of the CUDA commands,
# and the link then fails).
$(shell mkdir -p $(BUILD))
C_STAMP := $(BUILD)/flags-c.stamp
C_FLAGS_NOW := $(strip $(CC) $(CPPFLAGS) $(CFLAGS))
ifneq ($(C_FLAGS_NOW),$(strip $(file <$(C_STAMP))))
$(file >$(C_STAMP),$(C_FLAGS_NOW))
endif
CU_STAMP := $(BUILD)/flags-cu.stamp
CU_FLAGS_NOW := $(strip $(NVCC) $(NVCCFLAGS))
ifneq ($(CU_FLAGS_NOW),$(strip $(file <$(CU_STAMP))))
$(file >$(CU_STAMP),$(CU_FLAGS_NOW))
endif

# ---- compile rules ---------------------------------------------------------------------------
$(BUILD)/obj/%_avx2.c.o: %_avx2.c $(C_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -mavx2 -mfma -MMD -MP -c $< -o $@
$(BUILD)/obj/%_avx512.c.o: %_avx512.c $(C_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx2 -mfma -MMD -MP -c $< -o $@
$(BUILD)/obj/%.c.o: %.c $(C_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/%.cu.o: %.cu $(CU_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(WORKSHOP_INC) -Iinclude -Isrc -Itests -Itests/common $(NVCCFLAGS) -MMD -MP -c $< -o $@
# The workshop's sources (not the library's) see the repository root, for "harness/..." and
# "bench/bench.h".
WORKSHOP_DIRS := harness bench tools tests
$(foreach d,$(WORKSHOP_DIRS),$(eval $(BUILD)/obj/$(d)/%: WORKSHOP_INC := -I.))
$(foreach d,$(WORKSHOP_DIRS),$(eval $(BUILD)/obj/$(d)/%: CPPFLAGS += -I.))

# ---- link rules ------------------------------------------------------------------------------
$(SHLIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libgemmkit.so.$(SOVERSION) -o $@ $^ $(CUDA_LIBS) $(LIB_LDLIBS)
	ln -sf libgemmkit.so.$(VERSION) $(BUILD)/lib/libgemmkit.so.$(SOVERSION)
	ln -sf libgemmkit.so.$(VERSION) $(BUILD)/lib/libgemmkit.so
$(STLIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
# gk-ooc-bench (bench/ooc/ooc_bench.cu): the out-of-core SGEMM against the in-memory call and
# cuBLAS-Xt (dlopen'ed), docs/cuda.md "Out-of-core and multi-GPU".
ifeq ($(HAVE_CUDA),1)
OOC_BENCH := $(BUILD)/bin/gk-ooc-bench
cli: $(OOC_BENCH)
$(BUILD)/obj/bench/ooc/ooc_bench.cu.o: NVCCFLAGS += -Xcompiler -fopenmp
$(OOC_BENCH): $(BUILD)/obj/bench/ooc/ooc_bench.cu.o $(STLIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(STLIB) $(CUDA_LIBS) $(LDLIBS)
endif
# gk-dist-bench (bench/dist/dist_bench.cu): the distributed SGEMM over NCCL on 1, 2, 4 ... GPUs,
# docs/cuda.md "Distributed SGEMM over NCCL".
ifeq ($(HAVE_CUDA),1)
DIST_BENCH := $(BUILD)/bin/gk-dist-bench
cli: $(DIST_BENCH)
$(DIST_BENCH): $(BUILD)/obj/bench/dist/dist_bench.cu.o $(STLIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(STLIB) $(CUDA_LIBS) $(LDLIBS)
endif
$(CLI): $(CLI_OBJ) $(BENCH_OBJ) $(HARNESS_OBJ) $(HARNESS_CU_OBJ) $(STLIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $(CLI_OBJ) $(BENCH_OBJ) $(HARNESS_OBJ) $(HARNESS_CU_OBJ) $(STLIB) $(CUDA_LIBS) $(LDLIBS)
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.c.o $(TEST_COMMON_OBJ) $(HARNESS_OBJ) $(STLIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(TEST_COMMON_OBJ) $(HARNESS_OBJ) $(STLIB) $(CUDA_LIBS) $(LDLIBS)
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.cu.o $(TEST_COMMON_OBJ) $(HARNESS_OBJ) $(STLIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(TEST_COMMON_OBJ) $(HARNESS_OBJ) $(STLIB) $(CUDA_LIBS) $(LDLIBS)
$(BUILD)/obj/tests/%.c.o $(TEST_COMMON_OBJ): CPPFLAGS += -Itests -Itests/common
$(BUILD)/obj/tests/%.c.o $(TEST_COMMON_OBJ) $(HARNESS_OBJ) $(BENCH_OBJ) $(CLI_OBJ): CFLAGS += -fopenmp
# tests/core/test_alloc_fail.c makes the library's allocations and thread calls fail one at a time:
# the linker sends the calls to these functions to its __wrap_ versions.
ALLOC_FAIL_WRAP := malloc calloc realloc aligned_alloc posix_memalign strdup fopen pthread_create \
                   pthread_key_create pthread_setspecific pthread_atfork
$(BUILD)/tests/core/test_alloc_fail: private LDLIBS += $(ALLOC_FAIL_WRAP:%=-Wl,--wrap=%)

# ---- top-level jobs --------------------------------------------------------------------------
deps:
	@bash scripts/deps.sh

# deps before the build, which a sub-make then plans afresh: with several jobs they would otherwise
# run side by side, and what deps installs (the static BLIS of bench/bench.mk) would be looked for
# before it is there.
test: deps
	@$(MAKE) --no-print-directory all tests
	@echo "CUDA backend: $(if $(filter 1,$(HAVE_CUDA)),built ($(NVCC)),not built (no nvcc found))"
	@GK_BUILD=$(BUILD) GK_PYTHON=$(PYTHON) GK_TEST_LOG_DIR=$(GK_TEST_LOG_DIR) \
	    bash tests/run.sh $(TEST_BINS) $(TEST_SCRIPTS)

bench: deps all
	@GK_BUILD=$(BUILD) bash bench/run.sh $(BENCH_ARGS)

install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/gemmkit.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libgemmkit.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libgemmkit.so.$(SOVERSION)
	ln -sf libgemmkit.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libgemmkit.so
	install -m 644 $(STLIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(strip $(CUDA_LIBS) -lm -ldl -lpthread)|g' \
	    gemmkit.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gemmkit.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/gemmkit.h $(DESTDIR)$(PREFIX)/lib/libgemmkit.* \
	      $(DESTDIR)$(PREFIX)/bin/gemmkit $(DESTDIR)$(PREFIX)/lib/pkgconfig/gemmkit.pc

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf build build-san

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
-include bench/bench.mk
-include tests/fuzz/fuzz.mk
