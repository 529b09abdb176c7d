/*
 * bulk_generic.c — the portable loops (baseline ISA; what GEMMKIT_ARCH=generic selects);
 * the source is bulk_body.h, shared by every variant.
 */
#define GK_FMT_SUFFIX generic
#define GK_VBYTES 16
#include "formats/bulk_body.h"
