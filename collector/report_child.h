/* report_child — `mw report` runs `mw fit --json` (its model tables, cmd_report.c: report_fit,
 * until the fit is a library call) as a child process of the same executable
 * (/proc/self/exe) with an argument vector, never through a shell, and takes its standard
 * output and standard error into memory.
 *
 * The child's standard input is /dev/null. */
#ifndef MW_REPORT_CHILD_H
#define MW_REPORT_CHILD_H
#include <stddef.h>

typedef struct {
    char *out; /* standard output, NUL-terminated (malloc'd; never NULL after a run) */
    size_t out_len;
    char *err; /* standard error, NUL-terminated (malloc'd) */
    /* the exit status; 128 + N when killed by signal N; -1 when it could not be started
       (then err_start says why) */
    int status;
    char err_start[128];
} mw_report_child;

/* Runs /proc/self/exe with argv (argv[0] = "mw", NULL-terminated). Returns 0 when the child
 * ran (whatever its status), -1 when it could not be started or read (c->status = -1). */
int mw_report_child_run(char *const argv[], mw_report_child *c);
void mw_report_child_free(mw_report_child *c);
/* The last line of the child's standard error (where mw commands say why they failed),
 * without "\n", into buf; the reason when it could not be started; "" when none. */
const char *mw_report_child_last_err(const mw_report_child *c, char *buf, size_t len);
#endif
