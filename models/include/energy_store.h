/* energy_store — a channel's windows read from a run store, for models/energy.h.
 *
 * Every command that integrates a channel's power (mw fit's eq. 9 figures, mw sweep's
 * per-run energy, mw pareto's profiles from runs) reads the same three columns of the
 * samples table for one channel; this is that one reader. The windows come in the order of
 * the (channel, t1_ns) index, which is what mw_energy_trace_init wants (it sorts anyway). */
#ifndef MW_ENERGY_STORE_H
#define MW_ENERGY_STORE_H
#include <stddef.h>

#include "energy.h"

typedef struct sqlite3 sqlite3;

/* The windows [t0_ns, t1_ns) at power_mw of channel `channel`: *w (malloc'd, NULL when
 * there are none; the caller frees it) and *n. -1 with a one-line reason in err (SQLite's
 * message, or out of memory), *w NULL. */
int mw_energy_store_windows(sqlite3 *db, int channel, mw_energy_window **w, size_t *n, char *err,
                            size_t errlen);
#endif
