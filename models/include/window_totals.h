/* window_totals — exact figures of one channel's windows (mw ls, mw show, mw stats).
 *
 * Windows are added one at a time, in the order they were recorded, and summed in exact
 * integers: the energy of the windows, sum of power_mw x (t1_ns - t0_ns) in pJ (__int128);
 * the time they cover; the energy the meter's counter counted over the same span (the last
 * window's energy_mj - the first's + the first window's own energy, power_mw x its
 * meter-time length), which also counts windows lost on the way; and the holes between
 * consecutive windows longer than a threshold. Time differences wrap instead of overflowing
 * (only a damaged run's times are 292 years apart). Numbers in, numbers out; and one small
 * reader, a named channel's windows from a run store through its read API (mw_run.h). */
#ifndef MW_WINDOW_TOTALS_H
#define MW_WINDOW_TOTALS_H
#include <stddef.h>
#include <stdint.h>

#include "mw_store.h"

typedef struct {
    int64_t samples;    /* windows added */
    __int128 window_pj; /* sum of power_mw x (t1_ns - t0_ns): mW x ns = pJ */
    int64_t covered_ns; /* sum of t1_ns - t0_ns */
    int have_first;
    int64_t first_energy_mj, first_window_nj, last_energy_mj;
    int64_t last_t1_ns;
    int64_t holes, hole_ns; /* holes longer than the threshold: count, total length */
} mw_window_totals;

/* Add the window [t0_ns, t1_ns) at power_mw, energy_mj the run's energy at its end and
 * meter_us its length in meter time; a hole of more than hole_min_ns since the previous
 * window's end counts. Start from a zeroed mw_window_totals. */
void mw_window_totals_add(mw_window_totals *t, int64_t t0_ns, int64_t t1_ns, int32_t power_mw,
                          int64_t energy_mj, int64_t meter_us, int64_t hole_min_ns);
/* The time-weighted mean power, window_pj / covered_ns in mW rounded half away from zero.
 * 0, or -1 when the windows cover no time. */
int mw_window_totals_mean_mw(const mw_window_totals *t, __int128 *mean_mw);
/* The meter's counter over the windows' span, pJ (0 without windows). */
__int128 mw_window_totals_meter_pj(const mw_window_totals *t);

/* The windows of the channel named `name` in a run, in time order (t1_ns, then t0_ns): their
 * powers in W into *power_w (malloc'd, NULL when none; t->samples of them) and their totals
 * into *t (no holes counted). 0; -1 on a read error (mw_store_error(s)); -2 when the run has
 * no such channel: names then lists its channels' names, ", " between them, those that fit
 * in nameslen. Out of memory aborts (mw_alloc.h). */
int mw_window_totals_read_channel(mw_store *s, const char *name, double **power_w,
                                  mw_window_totals *t, char *names, size_t nameslen);
#endif
