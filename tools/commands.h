/*
 * commands.h — the subcommands of the `gemmkit` CLI. Each lives in its own file and receives
 * argv starting at the subcommand name; each supports --help and returns a process exit status.
 */
#ifndef GK_TOOLS_COMMANDS_H
#define GK_TOOLS_COMMANDS_H

int gk_cmd_info(int argc, char **argv);    /* tools/cmd_info.c */
int gk_cmd_run(int argc, char **argv);     /* tools/cmd_run.c */
int gk_cmd_bench(int argc, char **argv);   /* bench/cpu/cmd_bench.c: --device cpu|gpu|all */
int gk_cmd_kernels(int argc, char **argv); /* tools/cmd_kernels.c: the CUDA registry */

/* bench/gpu/ (CUDA builds only): the ladder harness, also reached through bench --device gpu. */
int gk_cmd_ladder(int argc, char **argv);

#endif
