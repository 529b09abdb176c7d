/*
 * cmd_info.c — `gemmkit info`: what the CPU path will do on this machine (ISA, kernel family and
 * why, micro-tile, cache blocking, caches, threads) and whether CUDA devices are usable. The CUDA
 * part goes through the public API only, so it reads the same in builds with and without CUDA.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gemmkit.h"

#ifdef GK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static void usage(FILE *f) {
    fprintf(f, "usage: gemmkit info\n\n"
               "Prints the CPU features gemmkit detected, the micro-kernel family it will use and\n"
               "why (cpuid, GEMMKIT_ARCH or gk_set_arch), micro-tile MR x NR, cache blocking\n"
               "MC/KC/NC, cache sizes, the thread count, and the CUDA backend's state.\n");
}

static void print_bytes(const char *label, int64_t bytes) {
    if (bytes <= 0)
        printf("  %-14s unknown\n", label);
    else if (bytes % (1024 * 1024) == 0)
        printf("  %-14s %lld MiB\n", label, (long long)(bytes / (1024 * 1024)));
    else
        printf("  %-14s %lld KiB\n", label, (long long)(bytes / 1024));
}

int gk_cmd_info(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        fprintf(stderr, "gemmkit info: unknown option '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }

    printf("gemmkit %s\n\nCPU\n", gk_version());
    gk_cpu_info ci;
    gk_status st = gk_cpu_get_info(&ci);
    if (st != GK_SUCCESS) {
        fprintf(stderr, "gemmkit info: gk_cpu_get_info failed: %s (%s)\n", gk_status_string(st),
                gk_last_error());
        return 1;
    }
    printf("  %-14s %s\n", "vendor", ci.vendor[0] ? ci.vendor : "unknown");
    printf("  %-14s %s\n", "model", ci.brand[0] ? ci.brand : "unknown");
    printf("  %-14s avx2=%s fma=%s avx512f=%s\n", "ISA", ci.has_avx2 ? "yes" : "no",
           ci.has_fma ? "yes" : "no", ci.has_avx512f ? "yes" : "no");
    printf("  %-14s %s (chosen by %s)\n", "kernel family", ci.arch, ci.arch_reason);
    printf("  %-14s %d x %d (MR x NR)\n", "micro-tile", ci.mr, ci.nr);
    for (int t = 0; t < 2; t++) { /* gk_gemm_ex's kernel for low-precision operands */
        const gk_format f = t ? GK_F16 : GK_BF16;
        const char *why = NULL, *kname = gk_cpu_gemm_ex_kernel(f, &why);
        printf("  %-14s %s (chosen by %s)\n", t ? "fp16 kernel" : "bf16 kernel",
               kname ? kname : "none", why ? why : "-");
    }
    printf("  %-14s MC=%lld KC=%lld NC=%lld\n", "blocking", (long long)ci.mc, (long long)ci.kc,
           (long long)ci.nc);
    print_bytes("L1d", ci.l1d_bytes);
    print_bytes("L2", ci.l2_bytes);
    print_bytes("L3", ci.l3_bytes);
    printf("  %-14s %d\n", "threads", ci.threads);

    printf("\nCUDA\n");
#ifdef GK_HAVE_CUDA
    printf("  %-14s built, %d kernels in the registry (gemmkit kernels)\n", "backend",
           gk_cuda_kernel_count());
    if (!gk_cuda_available()) {
        printf("  %-14s none usable (no GPU or driver); GPU commands report this\n", "devices");
        return 0;
    }
    int ndev = 0;
    cudaGetDeviceCount(&ndev);
    for (int d = 0; d < ndev; d++) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
        printf("  device %-7d %s, sm_%d%d, %d SMs, %.1f GiB\n", d, p.name, p.major, p.minor,
               p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30));
    }
#else
    printf("  %-14s not built (no nvcc at build time)\n", "backend");
#endif
    return 0;
}
