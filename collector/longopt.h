/* longopt — the hand-written option parsing of the commands whose operands follow their
 * options in order (mw dvfs, mw stats): "--name VALUE" and "--name=VALUE" alike. */
#ifndef MW_LONGOPT_H
#define MW_LONGOPT_H

/* 1 when arg is "--name" or "--name=...". */
int mw_longopt_is(const char *arg, const char *name);
/* The value of argv[*i], the option name: after its '=', else the next argument (*i
 * advanced). NULL when missing. */
const char *mw_longopt_value(int argc, char **argv, int *i, const char *name);
#endif
