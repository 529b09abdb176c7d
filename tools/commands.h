/*
 * commands.h — the subcommands of the `gemmkit` CLI and the option parsing they share. Each
 * command lives in its own file, receives argv starting at the subcommand name, supports --help,
 * parses its options and hands them to the benchmark library (bench/bench.h) or the public API;
 * it returns a process exit status (0 success, 1 failure, 2 usage error). Private to tools/.
 */
#ifndef GK_TOOLS_COMMANDS_H
#define GK_TOOLS_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

int gk_cmd_info(int argc, char **argv);     /* cmd_info.c */
int gk_cmd_run(int argc, char **argv);      /* cmd_run.c */
int gk_cmd_bench(int argc, char **argv);    /* cmd_bench.c: --device cpu|gpu|all */
int gk_cmd_bench_tc(int argc, char **argv); /* cmd_bench_tc.c: gemmkit bench --dtype LIST */
int gk_cmd_bench_ex(int argc, char **argv); /* cmd_bench_ex.c: bench --device cpu --dtype */
int gk_cmd_ladder(int argc, char **argv);   /* cmd_ladder.c: the CUDA ladder benchmark */
int gk_cmd_kernels(int argc, char **argv);  /* cmd_kernels.c: the CPU and CUDA registries */
int gk_cmd_quant(int argc, char **argv);    /* cmd_quant.c: a value in every number format */
int gk_cmd_batched(int argc, char **argv);  /* cmd_batched.c: batched SGEMM vs cuBLAS */
int gk_cmd_tune(int argc, char **argv);     /* cmd_tune.c: measure plans, write the tune cache */

/* Whole-string integer; 1 on success. */
int cli_parse_i64(const char *s, int64_t *out);

/* One item of a --sizes list appended to shapes[*n] (at most max): N (N x N x N), MxNxK, or
 * LO:HI:STEP (the squares LO, LO+STEP, ... up to HI). 0 on a malformed item, a size outside
 * 1..INT_MAX, or too many shapes. */
int cli_add_shapes(const char *item, bench_shape *shapes, int *n, int max);

/* Default results directory of bench and ladder: bench-results in the build tree the binary runs
 * from (<dir>/bin/gemmkit -> <dir>/bench-results, e.g. build/bench-results), so a run never
 * writes into the source tree; ./bench-results when that directory is not writable (an
 * installed binary). */
void cli_default_out(char *out, size_t len);

#endif
