/*
 * example.c — a first gemmkit program: one row-major SGEMM through the C API, how a failed call
 * reports itself (status + message naming the argument), and whether the GPU path is usable.
 *
 *   cc example.c $(pkg-config --cflags --libs gemmkit) -o example && ./example
 */
#include <gemmkit.h>
#include <stdio.h>

int main(void) {
    printf("gemmkit %s\n", gk_version());

    /* C (2x2) = A (2x3) * B (3x2), row-major as C arrays are written. */
    const float a[2 * 3] = {1, 2, 3, 4, 5, 6};
    const float b[3 * 2] = {7, 8, 9, 10, 11, 12};
    float c[2 * 2];
    gk_status st =
        gk_sgemm(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2);
    if (st != GK_SUCCESS) {
        fprintf(stderr, "gk_sgemm failed: %s: %s\n", gk_status_string(st), gk_last_error());
        return 1;
    }
    printf("C = A * B:\n");
    for (int i = 0; i < 2; i++)
        printf("  %g %g\n", c[i * 2], c[i * 2 + 1]);

    /* Mistakes come back as a status and a per-thread message; C is left untouched. */
    st = gk_sgemm(GK_ROW_MAJOR, GK_NO_TRANS, GK_NO_TRANS, 2, 2, 3, 1.0f, a, 1, b, 2, 0.0f, c, 2);
    printf("lda=1 is refused: %s (%s)\n", gk_status_string(st), gk_last_error());

    gk_cpu_info info;
    if (gk_cpu_get_info(&info) == GK_SUCCESS)
        printf("CPU kernels: %s, %d thread(s)\n", info.arch, info.threads);

    /* The CUDA entry points exist in every build; without the backend or a GPU they say so. */
    gk_cuda_ctx *ctx = NULL;
    st = gk_cuda_create(&ctx, 0, NULL);
    if (st == GK_SUCCESS) {
        printf("CUDA: available\n");
        gk_cuda_destroy(ctx);
    } else {
        printf("CUDA: %s\n", gk_status_string(st));
    }
    return 0;
}
