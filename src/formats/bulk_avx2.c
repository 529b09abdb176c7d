/*
 * bulk_avx2.c — the loops compiled for AVX2 (the file name gives -mavx2 -mfma);
 * the source is bulk_body.h, shared by every variant.
 */
#define GK_FMT_SUFFIX avx2
#define GK_VBYTES 32
#include "formats/bulk_body.h"
