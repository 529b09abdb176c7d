/*
 * ladder_emu.cpp — checks CUDA ladder launchers run on the CPU through emu/cuda_runtime.h (see
 * test_ladder_emulated.sh, which builds this with the launchers listed in -DGK_EMU_STEPS).
 *
 * Every step runs edge shapes (1x1x1, sizes that are not multiples of any tile, single rows and
 * columns, several block tiles) in four layouts: tight leading dimensions; padded ones that are
 * multiples of 4 (the float4 path); odd ones with matrices starting one float past a 16-byte
 * boundary (the scalar path); and ld = cols + 1. alpha/beta cover beta == 0 with NaN in C (must
 * not leak), beta == 0.5 and beta == 1. Buffers end exactly at the last element, so ASan flags any
 * access past a matrix; the gap between rows (ld > cols) is filled with a sentinel that must
 * survive. Results are held to the accuracy rule of docs/testing.md against a float64 reference.
 * The row splitting of launches too tall for gridDim.y (gk_for_row_chunks) is checked on its own.
 */
#include "cuda/gemm/kernel.cuh"
#include "cuda/gemm/util.cuh"
#include "cuda/ladder/ladder.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct step {
    const char *name;
    gk_launch_fn launch;
};
#define GK_EMU_STEP(n) {#n, gk_ladder_##n},
const step steps[] = {GK_EMU_STEPS};

std::mt19937 rng(2026);

struct matrix {
    std::vector<float> buf; /* exact size: offset + (rows - 1) * ld + cols */
    int off;
    int64_t rows, cols, ld;
    float *at(int64_t r, int64_t c) { return buf.data() + off + r * ld + c; }
};

const float SENTINEL = 12345.0f;

matrix make(int64_t rows, int64_t cols, int64_t ld, int off) {
    matrix m{std::vector<float>(off + (rows - 1) * ld + cols, SENTINEL), off, rows, cols, ld};
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            *m.at(r, c) = u(rng);
    return m;
}

/* Copy into a heap block of exactly the matrix's size so ASan sees its true end; 16-byte
 * aligned by malloc, so `off` alone decides alignment. */
float *exact_copy(const matrix &m) {
    float *p = (float *)malloc(m.buf.size() * sizeof(float));
    memcpy(p, m.buf.data(), m.buf.size() * sizeof(float));
    return p;
}

/* One problem; returns "" or why it failed. */
std::string run_case(const step &st, int64_t m, int64_t n, int64_t k, int layout) {
    auto ld = [&](int64_t cols) -> int64_t {
        switch (layout) {
        case 0:
            return cols;
        case 1:
            return (cols + 3) / 4 * 4 + 4;
        case 2:
            return cols + 3;
        default:
            return cols + 1;
        }
    };
    const int off = layout == 2 ? 1 : 0;
    const float alpha = layout % 2 ? -1.25f : 1.5f;
    const float beta = layout == 1 ? 0.5f : layout == 2 ? 1.0f : 0.0f;
    matrix a = make(m, k, ld(k), off), b = make(k, n, ld(n), off), c = make(m, n, ld(n), off);
    if (beta == 0.0f)
        for (int64_t r = 0; r < m; ++r)
            for (int64_t j = 0; j < n; ++j)
                *c.at(r, j) = NAN;

    float *da = exact_copy(a), *db = exact_copy(b), *dc = exact_copy(c);
    const gk_rm_problem p{m, n, k, alpha, beta, da + off, a.ld, db + off, b.ld, dc + off, c.ld};
    gk_launch_env env{};
    env.sm = 90, env.sm_count = 132;
    const cudaError_t err = st.launch(p, env);
    std::vector<float> out(dc, dc + c.buf.size());
    free(da);
    free(db);
    free(dc);
    if (err != cudaSuccess) return "launcher returned an error";

    char why[256];
    for (size_t i = 0; i < (size_t)c.off; ++i)
        if (out[i] != SENTINEL) return "wrote before C";
    for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < c.ld && (r < m - 1 || j < n); ++j) {
            const size_t idx = c.off + r * c.ld + j;
            if (j >= n) {
                if (out[idx] != SENTINEL) {
                    snprintf(why, sizeof why, "wrote C[%lld][%lld] outside the m x n block",
                             (long long)r, (long long)j);
                    return why;
                }
                continue;
            }
            double ref = 0.0, scale = 0.0;
            for (int64_t q = 0; q < k; ++q) {
                const double t = (double)*a.at(r, q) * *b.at(q, j);
                ref += t;
                scale += fabs(t);
            }
            const double old = beta == 0.0f ? 0.0 : c.buf[idx];
            ref = alpha * ref + beta * old;
            scale = fabs(alpha) * scale + fabs(beta * old);
            if (!(fabs(out[idx] - ref) <= (k + 2) * FLT_EPSILON * scale)) {
                snprintf(why, sizeof why, "C[%lld][%lld] = %.9g, reference %.9g", (long long)r,
                         (long long)j, out[idx], ref);
                return why;
            }
        }
    return "";
}

/* gk_for_row_chunks: problems with more row tiles than gridDim.y allows (65535) are split into
 * row slices that cover every row once, with A and C advanced by whole rows and B unchanged. No
 * kernel runs here (that many blocks would take hours to emulate); the slices are recorded. */
std::string check_row_chunks() {
    const int64_t tile = 64, m = 65535 * tile * 2 + 5, lda = 7, ldc = 9;
    const float *a = reinterpret_cast<const float *>(0x1000);
    float *c = reinterpret_cast<float *>(0x2000);
    const gk_rm_problem p{m, 3, 5, 1.0f, 0.0f, a, lda, a, 3, c, ldc};
    int64_t next = 0;
    int calls = 0;
    std::string why;
    const cudaError_t err = gk_for_row_chunks(p, tile, [&](const gk_rm_problem &q) {
        ++calls;
        if (q.m < 1 || gk_ceil_div(q.m, tile) > 65535) why = "slice with a bad row count";
        if (q.a != a + next * lda || q.c != c + next * ldc || q.b != p.b || q.n != p.n ||
            q.k != p.k)
            why = "slice does not start at the next row";
        next += q.m;
        return cudaSuccess;
    });
    if (err != cudaSuccess) return "returned an error";
    if (next != m) return "slices do not cover m rows";
    if (calls != 3) return "expected 3 slices, got " + std::to_string(calls);
    return why;
}

} // namespace

int main() {
    static const int64_t shapes[][3] = {{1, 1, 1},      {3, 5, 7},      {33, 17, 9}, {64, 64, 8},
                                        {130, 129, 17}, {129, 257, 33}, {7, 300, 5}, {300, 7, 40},
                                        {128, 128, 16}, {1, 200, 3},    {200, 1, 3}, {96, 132, 12},
                                        {257, 130, 1}};
    static const char *layouts[] = {"tight ld, beta 0, NaN in C", "ld multiple of 4, beta 0.5",
                                    "odd ld, misaligned, beta 1", "ld + 1, beta 0, NaN in C"};
    int failed = 0;
    const std::string chunks = check_row_chunks();
    if (chunks.empty()) {
        printf("ok emulated_row_chunks\n");
    } else {
        printf("FAIL emulated_row_chunks: %s\n", chunks.c_str());
        ++failed;
    }
    for (const step &st : steps) {
        std::string why;
        for (const auto &s : shapes) {
            for (int layout = 0; layout < 4 && why.empty(); ++layout) {
                why = run_case(st, s[0], s[1], s[2], layout);
                if (!why.empty())
                    why = "m=" + std::to_string(s[0]) + " n=" + std::to_string(s[1]) +
                          " k=" + std::to_string(s[2]) + " (" + layouts[layout] + "): " + why;
            }
            if (!why.empty()) break;
        }
        if (why.empty()) {
            printf("ok emulated_%s\n", st.name);
        } else {
            printf("FAIL emulated_%s: %s\n", st.name, why.c_str());
            ++failed;
        }
        fflush(stdout);
    }
    return failed != 0;
}
