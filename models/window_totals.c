/* window_totals — see window_totals.h. Every time difference is taken in uint64 and read
 * back as int64 (wrapping), as mw export does with times since the start. The reader finds
 * the channel's number by its name, then streams its windows by time. */
#include "window_totals.h"

#include <stdio.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_run.h"

static int64_t ns_diff(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t ns_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

void mw_window_totals_add(mw_window_totals *t, int64_t t0_ns, int64_t t1_ns, int32_t power_mw,
                          int64_t energy_mj, int64_t meter_us, int64_t hole_min_ns)
{
    t->samples++;
    t->window_pj += (__int128)power_mw * ((__int128)t1_ns - t0_ns);
    t->covered_ns = ns_add(t->covered_ns, ns_diff(t1_ns, t0_ns));
    if (!t->have_first) {
        t->have_first = 1;
        t->first_energy_mj = energy_mj;
        t->first_window_nj = (int64_t)((uint64_t)(int64_t)power_mw * (uint64_t)meter_us);
    } else if (ns_diff(t0_ns, t->last_t1_ns) > hole_min_ns) {
        t->holes++;
        t->hole_ns = ns_add(t->hole_ns, ns_diff(t0_ns, t->last_t1_ns));
    }
    t->last_energy_mj = energy_mj;
    t->last_t1_ns = t1_ns;
}

int mw_window_totals_mean_mw(const mw_window_totals *t, __int128 *mean_mw)
{
    if (t->covered_ns <= 0) return -1;
    __int128 mw = t->window_pj / t->covered_ns; /* rounded toward zero */
    __int128 rem = t->window_pj % t->covered_ns;
    if (rem < 0) rem = -rem;
    if (2 * rem >= t->covered_ns) mw += t->window_pj < 0 ? -1 : 1;
    *mean_mw = mw;
    return 0;
}

__int128 mw_window_totals_meter_pj(const mw_window_totals *t)
{
    if (!t->samples) return 0;
    __int128 nj = ((__int128)t->last_energy_mj - t->first_energy_mj) * 1000000 + t->first_window_nj;
    return nj * 1000;
}

/* The number of the channel called name, and the names of all. 0, -1 (read error), -2. */
static int channel_by_name(mw_store *s, const char *name, int *channel, char *names, size_t len)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return -1;
    mw_run_channel ch;
    int rc;
    *channel = -1;
    if (len) *names = 0;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        if (!strcmp(ch.name, name)) *channel = ch.channel;
        size_t used = strlen(names);
        if (used + strlen(ch.name) + 3 < len)
            snprintf(names + used, len - used, "%s%s", used ? ", " : "", ch.name);
    }
    mw_run_close(c);
    return rc ? -1 : *channel < 0 ? -2 : 0;
}

int mw_window_totals_read_channel(mw_store *s, const char *name, double **power_w,
                                  mw_window_totals *t, char *names, size_t nameslen)
{
    *power_w = NULL;
    memset(t, 0, sizeof *t);
    int channel, rc = channel_by_name(s, name, &channel, names, nameslen);
    if (rc) return rc;
    mw_run_cursor *c = mw_run_windows(s, channel, MW_RUN_BY_TIME);
    if (!c) return -1;
    mw_store_sample w;
    size_t cap = 0;
    while ((rc = mw_run_window_next(c, &w)) == 1) {
        if ((size_t)t->samples == cap) {
            cap = cap ? 2 * cap : 4096;
            *power_w = mw_xrealloc(*power_w, cap * sizeof **power_w);
        }
        (*power_w)[t->samples] = (double)w.power_mw / 1000;
        mw_window_totals_add(t, w.t0_ns, w.t1_ns, w.power_mw, 0, 0, INT64_MAX);
    }
    mw_run_close(c);
    return rc ? -1 : 0;
}
