/*
 * bulk_avx512.c — the loops compiled for AVX-512 (the file name gives -mavx512f/vl/dq/bw);
 * the source is bulk_body.h, shared by every variant.
 */
#define GK_FMT_SUFFIX avx512
#define GK_VBYTES 64
#include "formats/bulk_body.h"
