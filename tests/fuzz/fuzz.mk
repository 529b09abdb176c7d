# fuzz.mk — builds the libFuzzer target tests/fuzz/fuzz_gemm.c (docs/testing.md, "Fuzzing") into
# $(BUILD)/fuzz/fuzz_gemm. libFuzzer needs clang, so the library sources are compiled again, with
# clang, ASan + UBSan and coverage instrumentation, into objects of their own under
# $(BUILD)/fuzz/obj; the CUDA backend is left out (src/core/cuda_absent.c stands in for it).
#
#   make fuzz                                     via the Makefile, which includes this file
#   make -f tests/fuzz/fuzz.mk BUILD=<dir> fuzz   alone (tests/fuzz/test_fuzz.sh): reads none of
#                                                 the Makefile's build settings or flag stamps
BUILD ?= build
FUZZ_CC ?= clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ := $(FUZZ_DIR)/fuzz_gemm
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -I. -Wall -Wextra $(FUZZ_SAN)
# Coverage guides the fuzzer through the library and the target's decoding, not the reference.
FUZZ_COV := -fsanitize=fuzzer-no-link

# (src/formats: the conversions gk_gemm_ex's BF16/FP16 path uses)
FUZZ_LIB_C := $(wildcard src/core/*.c src/cpu/*.c src/cpu/*/*.c src/blas/*.c src/formats/*.c)
ifneq ($(or $(MACHINE),$(shell uname -m)),x86_64)
FUZZ_LIB_C := $(filter-out %_avx2.c %_avx512.c,$(FUZZ_LIB_C))
endif
FUZZ_OBJ := $(patsubst %,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_C) tests/fuzz/fuzz_gemm.c)
FUZZ_HARNESS_OBJ := $(FUZZ_DIR)/obj/harness/ref.c.o

# The per-ISA flags of the Makefile's rules, chosen by the file name.
fuzz_isa = $(if $(filter %_avx2.c,$(1)),-mavx2 -mfma,$(if $(filter %_avx512.c,$(1)),-mavx512f \
           -mavx512vl -mavx512dq -mavx512bw -mavx2 -mfma))

.PHONY: fuzz
fuzz: $(FUZZ)
$(FUZZ): $(FUZZ_OBJ) $(FUZZ_HARNESS_OBJ)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ -lm -lpthread
$(FUZZ_HARNESS_OBJ): harness/ref.c tests/fuzz/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_DIR)/obj/%.c.o: %.c tests/fuzz/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COV) $(call fuzz_isa,$<) -MMD -MP -c $< -o $@

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_HARNESS_OBJ:.o=.d)
