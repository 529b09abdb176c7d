# bench.mk — extra build steps of the benchmarks, included from the Makefile: the BLIS peer's shim,
# and the developer probes of bench/probe/ (`make probes` builds them all).
#
# gk_blis_best.so: the "BLIS at its best" peer (bench/cpu/shim/peer_blis_ctx.c) linked against
# the static libblis.a so it can select any configuration BLIS was built with. Built with the CLI
# when the static library and header exist; if the link fails the benchmark reports that peer as
# missing instead of the whole build failing.

BLIS_STATIC ?= $(firstword $(wildcard /usr/lib/$(MACHINE)-linux-gnu/libblis.a /usr/lib/libblis.a \
                                      /usr/local/lib/libblis.a))
BLIS_HEADER ?= $(firstword $(wildcard /usr/include/$(MACHINE)-linux-gnu/blis.h \
                                      /usr/include/blis/blis.h /usr/include/blis.h \
                                      /usr/local/include/blis/blis.h))
BLIS_BEST := $(BUILD)/lib/gk_blis_best.so

ifneq ($(and $(BLIS_STATIC),$(BLIS_HEADER)),)
cli: $(BLIS_BEST)
$(BLIS_BEST): bench/cpu/shim/peer_blis_ctx.c bench/bench.mk
	@mkdir -p $(@D)
	$(CC) -O2 -std=c11 -fPIC -shared -fvisibility=hidden -I$(dir $(BLIS_HEADER)) $< \
	    -o $@ $(BLIS_STATIC) -fopenmp -lm -lpthread -Wl,--exclude-libs,ALL -Wl,-Bsymbolic || \
	    echo "bench.mk: $@ not built; the blis-best benchmark column will be reported missing"
endif

# ---- developer probes (bench/probe/): diagnostics, not benchmarks of record --------------------
# The CPU ones are built with the CLI too, so that they keep compiling; the CUDA one only by
# `make probes`, since it links cuBLAS directly.

# gk-cpu-probe (bench/probe/cpu_probe.c): a white-box probe of the CPU module that times the
# packed path's pieces (micro-kernel tiles, panel packing) and small whole GEMMs on this CPU.
# Linked with the static library because it reaches the internal kernel registry.
PROBE := $(BUILD)/bin/gk-cpu-probe
cli: $(PROBE)
$(PROBE): bench/probe/cpu_probe.c $(HARNESS_OBJ) $(STLIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I. $(CFLAGS) -fvisibility=default $< -o $@ $(HARNESS_OBJ) $(STLIB) -fopenmp \
	    -lm -lpthread

# gk-call-ab (bench/probe/call_ab.c): per-call time of tiny GEMMs through two libraries loaded
# side by side (two builds of libgemmkit.so, or gemmkit and a CBLAS library).
CALL_AB := $(BUILD)/bin/gk-call-ab
cli: $(CALL_AB)
$(CALL_AB): bench/probe/call_ab.c include/gemmkit.h $(HARNESS_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I. $(CFLAGS) $< -o $@ $(HARNESS_OBJ) -ldl -lm

# gk-batch-bench (bench/probe/batch_bench.c): batched SGEMM against a loop of calls and peers'
# cblas_sgemm_batch (issue 19's batched target). Linked with the static library, whose
# cblas_sgemm_batch it calls.
BATCH_BENCH := $(BUILD)/bin/gk-batch-bench
cli: $(BATCH_BENCH)
$(BATCH_BENCH): bench/probe/batch_bench.c include/gemmkit.h src/blas/cblas_abi.h $(STLIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I. $(CFLAGS) $< -o $@ $(STLIB) $(CUDA_LIBS) -ldl -lm -lpthread

# gk-formats-bench (bench/probe/formats_bench.c): single-thread bandwidth of every bulk conversion
# variant against memcpy (docs/formats.md, "Bulk conversions on the CPU"). Linked with the static library
# because it calls the internal variants one by one.
FORMATS_BENCH := $(BUILD)/bin/gk-formats-bench
cli: $(FORMATS_BENCH)
$(FORMATS_BENCH): bench/probe/formats_bench.c $(STLIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(STLIB) $(CUDA_LIBS) -ldl -lm -lpthread

# gk-batch-probe (bench/probe/batch_probe.cu): the GPU batched SGEMM with each tile configuration
# and the small-item kernel forced, against cublasSgemmStridedBatched (docs/cuda.md, "Batched"; bench/results/h100/batch_probe.txt). It compiles the library's batched launchers into
# itself to reach their internal configuration table, so it depends on their sources, not on the
# library.
ifeq ($(HAVE_CUDA),1)
BATCH_PROBE := $(BUILD)/bin/gk-batch-probe
BATCH_PROBE_DEPS := $(wildcard src/cuda/gemm/*.cu src/cuda/gemm/*.cuh src/cuda/gemm/*.h \
                                src/cuda/core/*.h src/cuda/ptx/*.cuh src/core/*.h include/gemmkit.h)
$(BATCH_PROBE): bench/probe/batch_probe.cu $(BATCH_PROBE_DEPS) $(CU_STAMP)
	@mkdir -p $(@D)
	$(NVCC) -Iinclude -Isrc $(NVCCFLAGS) $< -o $@ -L$(CUDA_HOME)/lib64 -lcublas
endif

# gk-tc-plans (bench/probe/tc_plans.cu): every plan of the sm_90a tensor-core kernel forced on
# BF16 shapes of models, against the launcher's choice and cuBLAS (docs/cuda.md, "Shapes: swap,
# narrow tiles, K chunks"; bench/results/h200/tc_plans.txt). Linked with the static library, whose
# internal launcher (src/cuda/hopper/hopper.h) it calls.
ifeq ($(HAVE_CUDA),1)
TC_PLANS := $(BUILD)/bin/gk-tc-plans
$(TC_PLANS): bench/probe/tc_plans.cu src/cuda/hopper/hopper.h $(STLIB) $(CU_STAMP)
	@mkdir -p $(@D)
	$(NVCC) -Iinclude -Isrc $(NVCCFLAGS) $< -o $@ $(STLIB) -L$(CUDA_HOME)/lib64 -lcublas -ldl
endif

.PHONY: probes
probes: $(PROBE) $(CALL_AB) $(BATCH_BENCH) $(FORMATS_BENCH) $(BATCH_PROBE) $(TC_PLANS)
