/* run_summary — reading and formatting what "mw ls" and "mw show" print of a run; the
 * figures and their definitions are in run_summary.h. The reading is one pass over the
 * run's channels, one over its windows (in the meter's order) and one over its gaps
 * table, all through the typed read API mw_run.h inside the caller's snapshot; every sum
 * is kept in exact integers (__int128 pJ, int64 ns) and rounded once when formatted. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "mw_run.h"
#include "mw_store.h"
#include "run_summary.h"
#include "textout.h"

#define RUNSUM_HOLE_NS 1000000 /* a hole between windows longer than this is a gap */

/* ---- formatting -------------------------------------------------------------------- */

/* a - b of times read from a run, without signed overflow: it wraps only for a damaged
 * run's times (as since() in export_tables.c) */
int64_t mw_runsum_ns_diff(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* an exact sum of ns as int64, clamped */
static int64_t ns_clamp(__int128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

const char *mw_runsum_seconds(char *buf, size_t len, int64_t ns)
{
    return mw_out_fixed(buf, len, ns, 1000000, 3, "s");
}

/* Energy from pJ: J with 3 decimals below 10 kJ, kJ with 3 decimals above. */
const char *mw_runsum_energy(char *buf, size_t len, __int128 pj)
{
    const __int128 j = 1000000000000;
    if (pj < 10000 * j && pj > -10000 * j) return mw_out_fixed(buf, len, pj, j / 1000, 3, "J");
    return mw_out_fixed(buf, len, pj, j, 3, "kJ");
}

/* Local time, ISO 8601 with the UTC offset: 2023-11-14T23:13:20+01:00. */
const char *mw_runsum_iso_local(char *buf, size_t len, int64_t ns)
{
    time_t t = (time_t)(ns / 1000000000 - (ns % 1000000000 < 0 ? 1 : 0));
    struct tm tm;
    if (!localtime_r(&t, &tm)) {
        snprintf(buf, len, "?");
        return buf;
    }
    char d[64];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    long off = tm.tm_gmtoff;
    char sign = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    int hh = (int)(off / 3600 % 100), mm = (int)(off / 60 % 60); /* UTC offsets are < 24 h */
    snprintf(buf, len, "%.40s%c%02d:%02d", d, sign, hh, mm);
    return buf;
}

/* ---- reading a run ----------------------------------------------------------------- */

int mw_runsum_fail(const char *cmd, mw_store *s)
{
    fprintf(stderr, "mw %s: %s\n", cmd, mw_store_error(s));
    return -1;
}

static mw_runsum_channel *find_channel(mw_runsum_run *r, int channel)
{
    for (int i = 0; i < r->nch; i++)
        if (r->ch[i].channel == channel) return &r->ch[i];
    if (r->nch == MW_RUNSUM_MAX_CHANNELS) return NULL;
    mw_runsum_channel *c = &r->ch[r->nch++];
    memset(c, 0, sizeof *c);
    c->channel = channel;
    snprintf(c->name, sizeof c->name, "%d", channel);
    snprintf(c->host, sizeof c->host, "-");
    snprintf(c->pin, sizeof c->pin, "-");
    return c;
}

static int read_channels(const char *cmd, mw_store *s, mw_runsum_run *r)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return mw_runsum_fail(cmd, s);
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        mw_runsum_channel *cs = find_channel(r, ch.channel);
        if (!cs) continue;
        snprintf(cs->name, sizeof cs->name, "%s", ch.name);
        if (ch.host) snprintf(cs->host, sizeof cs->host, "%s", ch.host);
        if (ch.pin) snprintf(cs->pin, sizeof cs->pin, "%s", ch.pin);
        cs->meter = ch.meter;
        cs->meter_channel = ch.meter_channel;
    }
    mw_run_close(c);
    return rc ? mw_runsum_fail(cmd, s) : 0;
}

static int read_samples(const char *cmd, mw_store *s, mw_runsum_run *r)
{
    mw_run_cursor *c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW);
    if (!c) return mw_runsum_fail(cmd, s);
    mw_store_sample w;
    int rc;
    int64_t max_t1 = INT64_MIN, min_t0 = INT64_MAX;
    while ((rc = mw_run_window_next(c, &w)) == 1) {
        mw_runsum_channel *cs = find_channel(r, w.channel);
        if (!cs) {
            fprintf(stderr, "mw %s: %s: more than %d channels\n", cmd, mw_store_path(s),
                    MW_RUNSUM_MAX_CHANNELS);
            mw_run_close(c);
            return -1;
        }
        mw_window_totals_add(&cs->t, w.t0_ns, w.t1_ns, w.power_mw, w.energy_mj,
                             (int64_t)(w.meter_t1_us - w.meter_t0_us), RUNSUM_HOLE_NS);
        r->samples++;
        r->window_pj += (__int128)w.power_mw * ((__int128)w.t1_ns - w.t0_ns);
        if (w.t1_ns > max_t1) max_t1 = w.t1_ns;
        if (w.t0_ns < min_t0) min_t0 = w.t0_ns;
    }
    r->first_t0_ns = min_t0;
    r->last_t1_ns = max_t1;
    mw_run_close(c);
    if (rc) return mw_runsum_fail(cmd, s);
    if (!r->have_end && r->samples) {
        r->have_end = 1;
        r->end_ns = max_t1;
    }
    return 0;
}

/* the gaps the recorder noted: count and total length */
static int read_gaps(const char *cmd, mw_store *s, mw_runsum_run *r)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return mw_runsum_fail(cmd, s);
    mw_run_gap g;
    int rc;
    __int128 total = 0;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        r->gaps++;
        total += (__int128)g.end_ns - g.start_ns;
    }
    mw_run_close(c);
    r->gap_ns = ns_clamp(total);
    return rc ? mw_runsum_fail(cmd, s) : 0;
}

static int meta_int(mw_store *s, const char *key, int64_t *v)
{
    char buf[64], *end;
    if (mw_store_meta_get(s, key, buf, sizeof buf)) return -1;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (errno || end == buf || *end) return -1;
    *v = x;
    return 0;
}

/* Everything ls and show need (the caller holds a snapshot). */
int mw_runsum_read(const char *cmd, mw_store *s, mw_runsum_run *r)
{
    memset(r, 0, sizeof *r);
    if (mw_store_meta_get(s, "status", r->status, sizeof r->status))
        snprintf(r->status, sizeof r->status, "unknown");
    r->have_start = mw_store_start_ns(s, &r->start_ns) == 0;
    r->have_end = meta_int(s, "end_ns", &r->end_ns) == 0;
    r->have_cmd = meta_int(s, "cmd_start_ns", &r->cmd_start_ns) == 0 &&
                  meta_int(s, "cmd_end_ns", &r->cmd_end_ns) == 0 &&
                  r->cmd_end_ns >= r->cmd_start_ns;
    return read_channels(cmd, s, r) || read_samples(cmd, s, r) || read_gaps(cmd, s, r) ? -1 : 0;
}

/* The run's duration: the command's run time (meta cmd_start_ns to cmd_end_ns) when it
 * ran one — the recording's own end (meta end_ns) comes after the idle stages and the merge
 * of the probe's events, so it is not the program's time — else, for a run without a
 * command (imported, or still recording), start to end (the last window's end when there
 * is no end yet), else the windows' extent; "-" when none is known. *what says which. */
const char *mw_runsum_duration(char *buf, size_t len, const mw_runsum_run *r, const char **what)
{
    snprintf(buf, len, "-");
    *what = "";
    if (r->have_cmd) {
        *what = "the command's run time";
        return mw_runsum_seconds(buf, len, mw_runsum_ns_diff(r->cmd_end_ns, r->cmd_start_ns));
    }
    if (r->have_start && r->have_end) { /* no command: an imported trace, a live run */
        *what = "start to end: no command times recorded";
        return mw_runsum_seconds(buf, len, mw_runsum_ns_diff(r->end_ns, r->start_ns));
    }
    if (r->samples) {
        *what = "the recorded windows, first to last";
        return mw_runsum_seconds(buf, len, mw_runsum_ns_diff(r->last_t1_ns, r->first_t0_ns));
    }
    return buf;
}

/* Open RUNDIR for cmd: NULL with the exit code in *code (2: not a run, or bad input (not a
 * megawatt run store, not a database, corrupt: mw_store_open's EINVAL); 1: the system
 * failed, an I/O error). */
mw_store *mw_runsum_open(const char *cmd, const char *rundir, int *code)
{
    if (!mw_store_exists(rundir)) {
        fprintf(stderr, "mw %s: %s: not a run (no %s there)\n", cmd, rundir, MW_STORE_DB_NAME);
        *code = MW_EXIT_USAGE;
        return NULL;
    }
    char err[1024];
    mw_store *s = mw_store_open(rundir, err, sizeof err);
    if (!s) {
        *code = errno == EINVAL ? MW_EXIT_USAGE : MW_EXIT_FAIL;
        fprintf(stderr, "mw %s: %s\n", cmd, err);
    }
    return s;
}
