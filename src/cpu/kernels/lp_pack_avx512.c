/*
 * lp_pack_avx512.c — packing of BF16 codes into the low-precision kernels' panels (lp.h: the
 * pairs and rows layouts), from either orientation of the stored operand. Plain C on 16-bit codes
 * (bit copies, no arithmetic), compiled with the AVX-512 flags because only the AVX-512 BF16 and
 * AMX kernels read these panels.
 */
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "cpu/kernels/lp.h"

/* X(l, p) of the block, l < valid lanes of the panel, p < kb. */
static inline uint16_t at(const uint16_t *s, int64_t l, int64_t p, int64_t ls, int64_t ps) {
    return s[l * ls + p * ps];
}

void gk_lp_pack_pairs(void *dst_, int w, int64_t lanes, int64_t kb, int64_t kp, const void *src_,
                      int64_t ls, int64_t ps, int64_t npan) {
    const uint16_t *src = src_;
    for (int64_t q = 0; q < npan; q++) {
        uint16_t *restrict d = (uint16_t *)dst_ + q * w * kp;
        const uint16_t *s = src + q * w * ls;
        const int valid = (int)gk_min64(w, lanes - q * w);
        const int64_t kfull = kb & ~(int64_t)1; /* whole pairs */
        if (valid < w || kp > kfull) memset(d, 0, sizeof(uint16_t) * (size_t)(w * kp));
        if (ls == 1) { /* lanes contiguous: interleave two steps' rows */
            for (int64_t p = 0; p < kfull; p += 2) {
                const uint16_t *restrict s0 = s + p * ps, *restrict s1 = s0 + ps;
                uint16_t *restrict dp = d + p * w;
                for (int l = 0; l < valid; l++) {
                    dp[2 * l] = s0[l];
                    dp[2 * l + 1] = s1[l];
                }
            }
        } else { /* steps contiguous (ps == 1): each lane's pair is two adjacent codes */
            for (int l = 0; l < valid; l++) {
                const uint16_t *restrict sl = s + l * ls;
                for (int64_t p = 0; p < kfull; p += 2) {
                    uint32_t pair;
                    memcpy(&pair, sl + p, sizeof pair);
                    memcpy(d + p * w + 2 * l, &pair, sizeof pair);
                }
            }
        }
        if (kb & 1) /* the last step alone, its partner zero */
            for (int l = 0; l < valid; l++)
                d[kfull * w + 2 * l] = at(s, l, kb - 1, ls, ps);
    }
}

void gk_lp_pack_rows(void *dst_, int w, int64_t lanes, int64_t kb, int64_t kp, const void *src_,
                     int64_t ls, int64_t ps, int64_t npan) {
    const uint16_t *src = src_;
    for (int64_t q = 0; q < npan; q++) {
        uint16_t *restrict d = (uint16_t *)dst_ + q * w * kp;
        const uint16_t *s = src + q * w * ls;
        const int valid = (int)gk_min64(w, lanes - q * w);
        if (valid < w || kp > kb) memset(d, 0, sizeof(uint16_t) * (size_t)(w * kp));
        for (int64_t p0 = 0; p0 < kb; p0 += 32) {
            const int n = (int)gk_min64(32, kb - p0);
            uint16_t *restrict dc = d + p0 * w; /* chunk p0 / 32 starts at (p0 / 32) * 32w */
            if (ps == 1) {                      /* steps contiguous: one run of n codes per lane */
                for (int l = 0; l < valid; l++)
                    memcpy(dc + 32 * l, s + l * ls + p0, sizeof(uint16_t) * (size_t)n);
            } else { /* lanes contiguous: a transpose, step by step */
                for (int t = 0; t < n; t++) {
                    const uint16_t *restrict st = s + (p0 + t) * ps;
                    for (int l = 0; l < valid; l++)
                        dc[32 * l + t] = st[l];
                }
            }
        }
    }
}
