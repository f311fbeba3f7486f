/* sweep_internal — what host/sweep.c (the directory) and host/sweep_run.c (the runs) share
 * and nothing outside host/ may call. */
#ifndef MW_SWEEP_INTERNAL_H
#define MW_SWEEP_INTERNAL_H
#include <stdint.h>
#include <time.h>

#include "mw_sweep.h"

int64_t mw_sweep_now_ns(clockid_t c);
/* Runs left running become planned again (their directories removed); the others are
 * counted into sw (finished, wall times). */
int mw_sweep_resume_runs(mw_sweep *sw, char *err, size_t errlen);
/* Hands e to the event hook. */
void mw_sweep_tell(mw_sweep *sw, const mw_sweep_event *e);

/* the characters of a run directory's name */
#define MW_SWEEP_RUN_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=-"
#endif
