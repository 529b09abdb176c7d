/*
 * default_handlers.c — a program with no xerbla_/cblas_xerbla of its own, built by
 * test_install.sh against the installed library: gemmkit's default handlers must print the
 * reference messages (row-major CBLAS positions mapped back to the caller's arguments) and
 * return instead of ending the program. Prototypes are declared here as a user's cblas.h would.
 */
#include <stddef.h>
#include <stdio.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);

int main(void) {
    const int two = 2, one = 1;
    const float f1 = 1.0f;
    float x[4] = {0};
    sgemm_("N", "N", &two, &two, &two, &f1, x, &one, x, &two, &f1, x, &two, 1, 1); /* lda: 8 */
    cblas_sgemm(102, 111, 111, -1, 0, 0, 1.0f, x, 1, x, 1, 0.0f, x, 1);            /* m: 4 */
    cblas_sgemm(101, 111, 111, -1, 0, 0, 1.0f, x, 1, x, 1, 0.0f, x, 1);            /* m: 4 */
    cblas_sgemm(101, 111, 111, 0, 0, 2, 1.0f, x, 1, x, 1, 0.0f, x, 1);             /* lda: 9 */
    cblas_sgemm(102, 5, 111, 0, 0, 0, 1.0f, x, 1, x, 1, 0.0f, x, 1);               /* TransA */
    printf("returned\n");
    return 0;
}
