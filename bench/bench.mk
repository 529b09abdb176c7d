# bench.mk — extra build steps of the CPU benchmark, included from the Makefile.
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
