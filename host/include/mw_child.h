/* mw_child — running another program (gnuplot, for libmwplot's figures) with an argument
 * vector, never through a shell, and taking its output into memory. */
#ifndef MW_CHILD_H
#define MW_CHILD_H
#include <stddef.h>

/* Runs prog (found on PATH when it has no slash) with argv in dir
 * (NULL: here), stdin from /dev/null, and takes its standard output and error into memory
 * (malloc'd, NUL-terminated). *status: the exit status, 128 + N when killed by signal N.
 * 0, or -1 when it could not be started (message in *err, *status -1). */
int mw_child_run(const char *prog, char *const argv[], const char *dir, char **out, char **err,
                 int *status);
/* The last non-empty line of text (where a program says why it failed), without its
 * newline, into buf; "" when none. Returns buf. */
const char *mw_child_last_line(const char *text, char *buf, size_t len);
#endif
