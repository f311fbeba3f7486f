/* cli — the mw command's dispatch, and what every command's option parsing shares.
 * mw_cli_main() is main() minus the process: tests call it directly.
 *
 * Exit codes (docs/cli.md, "Exit codes"; one policy for every command): 0 success; 1 the
 * operation failed at run time (a write error, a full disk, a meter lost, a store that
 * cannot be read for a reason that is not its content); 2 bad usage or bad input: an unknown
 * command or option, a missing or malformed argument, a number that is not plain decimal or
 * is outside its documented range, an option that takes one value given twice, and an input
 * the command cannot use (no such run, a file that is not a run store or not a database, a
 * corrupt store, a bad CSV or profile line). Each failure prints one line on stderr naming
 * the argument, file or line. mw record exits with its command's status instead. */
#ifndef MW_CLI_H
#define MW_CLI_H
#include <getopt.h>
#include <stdint.h>
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

/* The value arg of option opt ("--idle-power") of command cmd as a number through mw_num
 * (plain decimal only: no nan, inf, hex, spaces or trailing characters) in [min, max].
 * Returns 0 with *out set, else prints "mw CMD: OPT: 'ARG' is not a number" or "mw CMD:
 * OPT: 'ARG' is out of range (MIN to MAX UNIT)" and returns MW_EXIT_USAGE. unit may be "". */
int mw_cli_double(const char *cmd, const char *opt, const char *arg, double min, double max,
                  const char *unit, double *out);
/* The same for a whole number (no '.', no exponent). */
int mw_cli_int(const char *cmd, const char *opt, const char *arg, int64_t min, int64_t max,
               int64_t *out);
/* arg as a plain decimal number (mw_num.h), any finite double: 0, or -1 (nothing written,
 * nothing printed; the caller names the option and its range). Kept for callers that word
 * their own message; mw_cli_double says it for them. */
int mw_cli_number(const char *arg, double *out);

/* Inputs checked while parsing, so that a bad one is a usage error (exit 2) before anything
 * is made, not a note figure at exit 0: a --freqs list of GHz (as mw dvfs reads it,
 * mw_dvfs_gears_load), and a profile file (mw_profile_read; only a regular file is read
 * here: anything else is left to the command). 0, or the message printed and
 * MW_EXIT_USAGE. */
int mw_cli_check_freqs(const char *cmd, const char *list);
int mw_cli_check_profile(const char *cmd, const char *path);

/* Options that take one value may be given once: "--from 1 --from 2" is a usage error, not
 * the last one winning. A command keeps one mw_cli_seen (zeroed) for its parse and calls
 * mw_cli_once for each option it reads; repeatable options (documented as such: --group,
 * --kind, --channel of mw plot...) are simply not passed. */
typedef struct {
    char name[32][48];
    int n;
} mw_cli_seen;
/* 0 the first time name ("--from") is seen; later prints "mw CMD: NAME given twice" and
 * returns MW_EXIT_USAGE. */
int mw_cli_once(const char *cmd, mw_cli_seen *seen, const char *name);
/* For a getopt_long loop: the option c as getopt_long returned it, named from opts (the
 * long name whose val is c, else "-c"). Options without an argument, and those whose val is
 * in the 0-terminated list repeatable (NULL: none), always pass (0). */
int mw_cli_once_opt(const char *cmd, mw_cli_seen *seen, const struct option *opts, int c,
                    const int *repeatable);

/* Table of commands, terminated by a zeroed entry (cli.c). */
extern const mw_cli_command mw_cli_commands[];
#endif
