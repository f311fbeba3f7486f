/* cli — the mw command's dispatch. mw_cli_main() is main() minus the process: tests call it
 * directly. Exit codes: 0 success, 1 the operation failed, 2 bad usage (unknown command,
 * bad argument), with a one-line message on stderr naming what was wrong. */
#ifndef MW_CLI_H
#define MW_CLI_H
#include <stdio.h>

#define MW_EXIT_OK 0
#define MW_EXIT_FAIL 1
#define MW_EXIT_USAGE 2

typedef struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
} mw_cli_command;

int mw_cli_main(int argc, char **argv);

/* Print "mw CMD: message" to stderr and return MW_EXIT_USAGE. */
int mw_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True if argv holds -h or --help before any "--". */
int mw_cli_wants_help(int argc, char **argv);

/* Parse arg as a number: the whole string, finite. Returns 0, or -1 (nothing written). The
 * caller checks the range and names the option in its message. */
int mw_cli_number(const char *arg, double *out);

/* Table of commands, terminated by a zeroed entry (cli.c). */
extern const mw_cli_command mw_cli_commands[];
#endif
