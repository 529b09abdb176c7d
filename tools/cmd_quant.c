/*
 * cmd_quant.c — `gemmkit quant`: how float32 values are stored in each number format. For every
 * value (from the command line, a text file or a raw float32 file) and every format of the
 * library's registry (gk_format_info_get), in non-saturating and saturating mode: the code's bits
 * split into sign | exponent | mantissa, its hex, the value it decodes to and the rounding error.
 * Everything goes through the public conversion API (gk_encode / gk_decode), so what it shows is
 * what the library does; the rules are in docs/formats.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gemmkit.h"

static void usage(FILE *f) {
    fprintf(
        f, "usage: gemmkit quant [--format NAME] VALUE...\n"
           "       gemmkit quant [--format NAME] --file PATH [--raw]\n\n"
           "Shows each value as stored in every number format (or only NAME): the code's bits\n"
           "as sign | exponent | mantissa, the code in hex, the value it decodes to, and the\n"
           "absolute and relative rounding error, in non-saturating mode (values beyond the\n"
           "largest finite one become Inf, or NaN where the format has no Inf) and saturating\n"
           "mode (they become the largest finite value). Values are first rounded to float32\n"
           "(the conversions take float32), and errors are against that float32.\n\n"
           "  VALUE          a number as strtod reads it: 465, -1.5e-3, 0x1p-9, inf, nan\n"
           "  --format NAME  one format, by its ml_dtypes name (float8_e4m3fn, bfloat16, ...)\n"
           "  --file PATH    the values in PATH, one per line ('#' comments, blank lines skipped)\n"
           "  --raw          PATH holds raw little-endian float32 values instead of text\n\n"
           "Formats:");
    for (int id = 0; gk_format_name((gk_format)id); id++)
        fprintf(f, " %s", gk_format_name((gk_format)id));
    fprintf(f, "\n");
}

/* The code's `bits` low bits, most significant first, with a space after the sign bit (signed
 * formats) and after the exponent field. */
static void bit_string(char *out, uint32_t code, const gk_format_info *fi) {
    const int sign = fi->is_signed, ebits = fi->exponent_bits, n = fi->bits;
    int k = 0;
    for (int b = n - 1; b >= 0; b--) {
        const int pos = n - 1 - b; /* 0 for the top bit */
        if ((sign && pos == 1) || (pos == sign + ebits && pos < n)) out[k++] = ' ';
        out[k++] = (char)('0' + (code >> b & 1u));
    }
    out[k] = '\0';
}

/* The significant code of a format: TF32 keeps its 19 bits at the top of the float32 word. */
static uint32_t code_of(const void *buf, const gk_format_info *fi, gk_format fmt) {
    uint32_t c = 0;
    memcpy(&c, buf, (size_t)fi->storage_bytes); /* little-endian: the low bytes */
    return fmt == GK_TF32 ? c >> 13 : c;
}

/* The rounding error columns; "-" where there is no number to give. */
static void show_error(double err, double ref) {
    if (isnan(err))
        printf(" %-11s -\n", "-");
    else if (ref != 0)
        printf(" %-11.4g %.4g\n", err, err / fabs(ref));
    else
        printf(" %-11.4g -\n", err);
}

/* Width of the bits column: the longest bit string of the formats shown. */
static int bits_width(int only) {
    int w = 4;
    for (int f = 0; gk_format_name((gk_format)f); f++) {
        gk_format_info fi;
        if ((only >= 0 && f != only) || gk_format_info_get((gk_format)f, &fi) != GK_SUCCESS)
            continue;
        char bits[48];
        bit_string(bits, 0, &fi);
        if ((int)strlen(bits) > w) w = (int)strlen(bits);
    }
    return w;
}

static int show_value(float x, int only) {
    uint32_t xb;
    memcpy(&xb, &x, 4);
    const int bw = bits_width(only);
    printf("%.9g (float32 0x%08x)\n", (double)x, xb);
    printf("  %-16s %-6s %-*s %-10s %-16s %-11s %s\n", "format", "mode", bw, "bits", "code",
           "value", "abs error", "rel error");
    for (int f = 0; gk_format_name((gk_format)f); f++) {
        const gk_format fmt = (gk_format)f;
        if (only >= 0 && f != only) continue;
        gk_format_info fi;
        if (gk_format_info_get(fmt, &fi) != GK_SUCCESS) return 0;
        for (int sat = 0; sat < 2; sat++) {
            unsigned char code[4];
            float y;
            if (gk_encode(fmt, &x, code, 1, sat) != GK_SUCCESS ||
                gk_decode(fmt, code, &y, 1) != GK_SUCCESS) {
                fprintf(stderr, "gemmkit quant: %s\n", gk_last_error());
                return 0;
            }
            const uint32_t c = code_of(code, &fi, fmt);
            char bits[48], hex[16];
            bit_string(bits, c, &fi);
            snprintf(hex, sizeof hex, "0x%0*x", (fi.bits + 3) / 4, c);
            printf("  %-16s %-6s %-*s %-10s %-16.9g", fi.name, sat ? "sat" : "nonsat", bw, bits,
                   hex, (double)y);
            /* no error for NaN/Inf on either side: the value column says what happened */
            const int finite = isfinite(x) && isfinite(y);
            show_error(finite ? fabs((double)y - (double)x) : NAN, (double)x);
        }
    }
    printf("\n");
    return 1;
}

/* A whole-string number; 1 on success. */
static int parse_value(const char *s, float *out) {
    char *end;
    errno = 0;
    const double d = strtod(s, &end);
    if (end == s) return 0;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end) return 0;
    *out = (float)d; /* overflow to +-Inf is the float32 the conversion would see */
    return 1;
}

static int show_text_file(FILE *in, const char *path, int only) {
    char line[512];
    int ok = 1;
    for (long no = 1; ok && fgets(line, sizeof line, in); no++) {
        char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') continue;
        float x;
        if (!parse_value(p, &x)) {
            fprintf(stderr, "gemmkit quant: %s:%ld: not a number: %s", path, no, p);
            return 2;
        }
        ok = show_value(x, only);
    }
    return ok ? 0 : 1;
}

static int show_raw_file(FILE *in, int only) {
    unsigned char b[4];
    size_t got;
    while ((got = fread(b, 1, 4, in)) == 4) {
        float x;
        memcpy(&x, b, 4); /* little-endian hosts: the file's bytes as they are */
        if (!show_value(x, only)) return 1;
    }
    if (got) fprintf(stderr, "gemmkit quant: %zu trailing bytes ignored (not a float32)\n", got);
    return 0;
}

int gk_cmd_quant(int argc, char **argv) {
    const char *file = NULL;
    int raw = 0, only = -1, nvalues = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            const char *name = argv[++i];
            for (int f = 0; gk_format_name((gk_format)f) && only < 0; f++)
                if (!strcmp(gk_format_name((gk_format)f), name)) only = f;
            if (only < 0) {
                fprintf(stderr, "gemmkit quant: unknown format '%s'\n", name);
                usage(stderr);
                return 2;
            }
        } else if (!strcmp(a, "--file") && i + 1 < argc) {
            file = argv[++i];
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else {
            float x;
            if (!parse_value(a, &x)) {
                fprintf(stderr, "gemmkit quant: '%s' is neither an option nor a number\n", a);
                usage(stderr);
                return 2;
            }
            nvalues++;
        }
    }
    if ((file != NULL) == (nvalues > 0) || (raw && !file)) {
        fprintf(stderr, "gemmkit quant: give values or --file PATH (and --raw only with --file)\n");
        usage(stderr);
        return 2;
    }
    if (file) {
        FILE *in = fopen(file, raw ? "rb" : "r");
        if (!in) {
            fprintf(stderr, "gemmkit quant: cannot open %s: %s\n", file, strerror(errno));
            return 1;
        }
        const int rc = raw ? show_raw_file(in, only) : show_text_file(in, file, only);
        fclose(in);
        return rc;
    }
    for (int i = 1; i < argc; i++) {
        float x;
        if (!strcmp(argv[i], "--format")) {
            i++;
            continue;
        }
        if (parse_value(argv[i], &x) && !show_value(x, only)) return 1;
    }
    return 0;
}
