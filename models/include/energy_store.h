/* energy_store — a channel's windows read from a run store, for models/include/energy.h.
 *
 * Every command that integrates a channel's power (mw fit's eq. 9 figures, mw sweep's
 * per-run energy, mw pareto's profiles from runs) reads the same three columns of a
 * channel's windows; this is that one reader. It reads through the run store's cursors
 * (mw_run.h, no SQL here), in time order (t1_ns, then t0_ns: the (channel, t1_ns) index),
 * which is what mw_energy_trace_init wants (it sorts anyway). */
#ifndef MW_ENERGY_STORE_H
#define MW_ENERGY_STORE_H
#include <stddef.h>

#include "energy.h"
#include "mw_store.h"

/* The windows [t0_ns, t1_ns) at power_mw of channel `channel` of run s: *w (malloc'd, NULL
 * when there are none; the caller frees it) and *n. -1 with the store's one-line reason in
 * err ("PATH: reading the samples: ..."), *w NULL. */
int mw_energy_store_windows(mw_store *s, int channel, mw_energy_window **w, size_t *n, char *err,
                            size_t errlen);

/* The figures of one recorded command (mw sweep's per-run time and energy): its wall time
 * cmd_s = meta cmd_end_ns - cmd_start_ns, in s, and energy_j, the energy of every channel
 * over that span (each channel's windows pro rata, models/include/energy.h), in J. 0, or -1 with a
 * message naming the run in err ("RUNDIR: no command span (meta cmd_start_ns,
 * cmd_end_ns)", or the store's). */
int mw_energy_store_command(const char *rundir, double *cmd_s, double *energy_j, char *err,
                            size_t errlen);
#endif
