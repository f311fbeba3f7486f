/* energy_store — see energy_store.h. The windows come from one mw_run_windows cursor,
 * appended to a doubling array; a command's energy is the sum over the channels (the
 * mw_run_channels cursor, in channel order) of each channel's exact pro-rata energy over
 * the command span, read in one snapshot of the run. */
#include "energy_store.h"

#include <stdio.h>
#include <stdlib.h>

#include "mw_alloc.h"
#include "mw_run.h"

int mw_energy_store_windows(mw_store *s, int channel, mw_energy_window **w, size_t *n, char *err,
                            size_t errlen)
{
    *w = NULL;
    *n = 0;
    mw_run_cursor *c = mw_run_windows(s, channel, MW_RUN_BY_TIME);
    if (!c) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        return -1;
    }
    size_t cap = 0;
    mw_store_sample x;
    int rc;
    while ((rc = mw_run_window_next(c, &x)) == 1) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            *w = mw_xrealloc(*w, cap * sizeof **w);
        }
        (*w)[(*n)++] = (mw_energy_window){x.t0_ns, x.t1_ns, x.power_mw};
    }
    mw_run_close(c);
    if (rc < 0) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        free(*w);
        *w = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

/* every channel's energy over [t0_ns, t1_ns), pJ */
static int channels_energy(mw_store *s, int64_t t0_ns, int64_t t1_ns, mw_energy_pj *total,
                           char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        return -1;
    }
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        mw_energy_window *w;
        size_t n;
        if (mw_energy_store_windows(s, ch.channel, &w, &n, err, errlen)) break;
        mw_energy_trace t;
        if (mw_energy_trace_init(&t, w, n, err, errlen)) {
            free(w);
            break;
        }
        *total += mw_energy_span_pj(&t, t0_ns, t1_ns);
        mw_energy_trace_free(&t);
        free(w);
    }
    if (rc < 0) snprintf(err, errlen, "%s", mw_store_error(s));
    mw_run_close(c);
    return rc == 0 ? 0 : -1;
}

int mw_energy_store_command(const char *rundir, double *cmd_s, double *energy_j, char *err,
                            size_t errlen)
{
    mw_store *s = mw_store_open(rundir, err, errlen);
    if (!s) return -1;
    char buf[64];
    long long t0 = 0, t1 = 0;
    mw_energy_pj total = 0;
    int rc = -1;
    mw_run_snapshot_begin(s);
    if (mw_store_meta_get(s, "cmd_start_ns", buf, sizeof buf) || sscanf(buf, "%lld", &t0) != 1 ||
        mw_store_meta_get(s, "cmd_end_ns", buf, sizeof buf) || sscanf(buf, "%lld", &t1) != 1 ||
        t1 < t0) {
        snprintf(err, errlen, "%s: no command span (meta cmd_start_ns, cmd_end_ns)", rundir);
    } else if (channels_energy(s, t0, t1, &total, err, errlen) == 0) {
        *cmd_s = (double)(t1 - t0) * 1e-9;
        *energy_j = mw_energy_j(total);
        rc = 0;
    }
    mw_run_snapshot_end(s);
    mw_store_close(s);
    return rc;
}
