/* analysis_run — a run directory fed to the analysis (mw_analysis_read) through the run
 * store's read API (host/include/mw_run.h); the one file of models/ that reads a run, and it
 * holds no SQL.
 *
 * Everything is read inside one read snapshot: the channels, each with its meter's host; the phases that are spans
 * (kinds mark and counter left out, end after start); then every window's four integrated
 * columns in one scan in recording order (segment, seq, channel), which reads the samples
 * table's pages in order — asking each channel through the (channel, t1_ns) index costs a
 * lookup per row, several times slower (tests/bench/bench_analyze.c measures both). The
 * windows stream into the analysis; a channel whose windows were out of time order is read
 * again on its own; last, the meter's counter at each channel's first and last window of
 * the range, two lookups a channel. */
#include <stdio.h>
#include <stdlib.h>

#include "inband_share.h"
#include "mw_alloc.h"
#include "mw_analysis.h"
#include "mw_run.h"
#include "mw_store.h"

/* the meters' hosts, by meter number (hosts[m], NULL when not recorded); the count in *n */
static int read_meter_hosts(mw_store *s, char ***hosts, size_t *n, char *err, size_t errlen)
{
    *hosts = NULL;
    *n = 0;
    mw_run_cursor *c = mw_run_meters(s);
    if (!c) return mw_store_error_to(s, err, errlen);
    mw_run_meter m;
    int rc;
    while ((rc = mw_run_meter_next(c, &m)) == 1) {
        if (m.meter < 1 || m.meter > MW_ANALYSIS_MAX_CHANNELS || !m.host) continue;
        if ((size_t)m.meter >= *n) { /* a meter per channel at most is of use */
            *hosts = mw_xrealloc(*hosts, (size_t)(m.meter + 1) * sizeof **hosts);
            for (size_t k = *n; k <= (size_t)m.meter; k++)
                (*hosts)[k] = NULL;
            *n = (size_t)m.meter + 1;
        }
        free((*hosts)[m.meter]);
        (*hosts)[m.meter] = mw_xstrdup(m.host);
    }
    mw_run_close(c);
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

static int read_channels(mw_analysis_run *r, mw_store *s, char *err, size_t errlen)
{
    char **mhost;
    size_t nm;
    if (read_meter_hosts(s, &mhost, &nm, err, errlen)) return -1;
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) {
        free(mhost);
        return mw_store_error_to(s, err, errlen);
    }
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        if (mw_analysis_add_channel(r, ch.channel, ch.name, ch.host, err, errlen)) break;
        if (ch.meter >= 0 && (size_t)ch.meter < nm)
            mw_analysis_set_meter_host(r, ch.channel, mhost[ch.meter]);
    }
    mw_run_close(c);
    for (size_t k = 0; k < nm; k++)
        free(mhost[k]);
    free(mhost);
    if (rc == 1) return -1;
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

static int read_phases(mw_analysis_run *r, mw_store *s, char *err, size_t errlen)
{
    static const char *const instants[] = {"mark", "counter", NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.not_kinds = instants;
    f.spans = 1;
    mw_run_cursor *c = mw_run_phases(s, &f);
    if (!c) return mw_store_error_to(s, err, errlen);
    mw_store_phase p;
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1)
        mw_analysis_add_phase(r, p.rank, p.host, p.kind, p.name, p.start_ns, p.end_ns);
    mw_run_close(c);
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

static int read_windows(mw_analysis_run *r, mw_store *s, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_powers(s, -1, MW_RUN_BY_WINDOW);
    if (!c) return mw_store_error_to(s, err, errlen);
    mw_run_power w;
    int rc;
    while ((rc = mw_run_power_next(c, &w)) == 1)
        if (mw_analysis_add_window(r, w.channel, w.t0_ns, w.t1_ns, w.power_mw, err, errlen)) break;
    mw_run_close(c);
    if (rc == 1) return -1;
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

/* A channel's windows again, in recording order, for a channel out of time order. */
static int replay(mw_analysis_run *r, mw_store *s, size_t ci, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_powers(s, r->channels[ci].channel, MW_RUN_BY_WINDOW);
    if (!c) return mw_store_error_to(s, err, errlen);
    mw_energy_window *w = NULL;
    size_t n = 0, cap = 0;
    mw_run_power x;
    int rc;
    while ((rc = mw_run_power_next(c, &x)) == 1) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            w = mw_xrealloc(w, cap * sizeof *w);
        }
        w[n++] = (mw_energy_window){x.t0_ns, x.t1_ns, x.power_mw};
    }
    mw_run_close(c);
    if (rc == 0)
        rc = mw_analysis_replay(r, ci, w, n, err, errlen);
    else
        rc = mw_store_error_to(s, err, errlen);
    free(w);
    return rc;
}

/* The meter's counter at the first and last windows of the range. */
static int counters(mw_analysis_run *r, mw_store *s, size_t ci, char *err, size_t errlen)
{
    mw_energy_window first, last;
    if (!mw_analysis_counter_windows(r, ci, &first, &last)) return 0;
    int ch = r->channels[ci].channel;
    mw_store_sample a, b;
    int rc = mw_run_window_find(s, ch, first.t0_ns, first.t1_ns, &a);
    if (rc == 1) rc = mw_run_window_find(s, ch, last.t0_ns, last.t1_ns, &b);
    if (rc < 0) return mw_store_error_to(s, err, errlen);
    if (rc == 1)
        mw_analysis_set_counter(r, ci, a.energy_mj, (int64_t)(a.meter_t1_us - a.meter_t0_us),
                                b.energy_mj);
    return 0;
}

static int read_all(mw_analysis_run *r, mw_store *s, char *err, size_t errlen)
{
    if (read_channels(r, s, err, errlen) || read_phases(r, s, err, errlen) ||
        read_windows(r, s, err, errlen))
        return -1;
    if (r->samples == 0) return mw_analysis_finish(r, err, errlen); /* "no samples" */
    for (size_t c = 0; c < r->nchannels; c++)
        if (mw_analysis_replay_needed(r, c) && replay(r, s, c, err, errlen)) return -1;
    for (size_t c = 0; c < r->nchannels; c++)
        if (counters(r, s, c, err, errlen)) return -1;
    return 0;
}

int mw_analysis_read(const char *dir, const mw_analysis_options *o, mw_analysis_run **out,
                     char *err, size_t errlen)
{
    *out = NULL;
    if (!mw_store_exists(dir)) {
        snprintf(err, errlen, "%s: not a run (no %s there)", dir, MW_STORE_DB_NAME);
        return -1;
    }
    mw_store *s = mw_store_open(dir, err, errlen);
    if (!s) return -1;
    mw_run_snapshot_begin(s); /* one snapshot for all; a failure leaves each read its own */
    char status[128];
    if (mw_store_meta_get(s, "status", status, sizeof status))
        snprintf(status, sizeof status, "unknown");
    int64_t origin_ns;
    int rc = -1;
    mw_analysis_run *r = NULL;
    if (mw_store_start_ns(s, &origin_ns)) {
        snprintf(err, errlen, "%s: no samples", dir);
    } else {
        r = mw_analysis_new(dir, origin_ns, o);
        snprintf(r->status, sizeof r->status, "%s", status);
        char dropped[32];
        if (!mw_store_meta_get(s, "probe_dropped_events", dropped, sizeof dropped))
            r->probe_dropped = strtoll(dropped, NULL, 10);
        rc = read_all(r, s, err, errlen);
    }
    mw_run_snapshot_end(s);
    mw_store_close(s);
    if (!rc) rc = mw_analysis_finish(r, err, errlen);
    if (!rc) rc = mw_inband_share_read(dir, r->from_ns, r->to_ns, &r->inband, err, errlen);
    if (rc) {
        mw_analysis_free(r);
        return -1;
    }
    *out = r;
    return 0;
}
