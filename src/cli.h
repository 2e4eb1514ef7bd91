/* Subcommands of the `jelly` program (src/main.c dispatches). Each takes the
 * arguments after the subcommand name and returns the process exit code:
 * 0 success, 1 runtime failure (divergence), 2 bad input. */
#ifndef JL_SRC_CLI_H
#define JL_SRC_CLI_H

int jl_cli_check(int argc, char **argv);
int jl_cli_mesh(int argc, char **argv);
int jl_cli_run(int argc, char **argv);
int jl_cli_bench(int argc, char **argv);

/* Parses a strictly positive/any finite double or an int flag value; prints
 * "jelly <cmd>: --flag expects ..., got '...'" and returns 0 on failure. */
int jl_cli_parse_double(const char *cmd, const char *flag, const char *text, double *out);
int jl_cli_parse_int(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out);

#endif
