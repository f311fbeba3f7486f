/* longopt — the hand-written option parsing of the commands whose operands follow their
 * options in order (mw dvfs, mw stats, mw fit, mw sweep): "--name VALUE" and "--name=VALUE"
 * alike; an option that takes one value may be given once (cli.h, mw_cli_seen). */
#ifndef MW_LONGOPT_H
#define MW_LONGOPT_H
#include "cli.h"

/* 1 when arg is "--name" or "--name=...". */
int mw_longopt_is(const char *arg, const char *name);
/* The value of argv[*i], the option name: after its '=', else the next argument (*i
 * advanced). NULL when missing. */
const char *mw_longopt_value(int argc, char **argv, int *i, const char *name);
/* When arg is one of the NULL-terminated single-valued options names ("--name" or
 * "--name=..."), mw_cli_once on that name: 0, or MW_EXIT_USAGE with the message printed
 * the second time. Any other arg: 0. */
int mw_longopt_once(const char *cmd, mw_cli_seen *seen, const char *arg, const char *const *names);
#endif
