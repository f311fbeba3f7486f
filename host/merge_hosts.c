/* merge_hosts — see mw_merge_hosts.h.
 *
 * The output store is made fresh (mw_store_create with force: an earlier merge's trace.db
 * is replaced, the hosts/ directory left alone; mw_merge_hosts_again sets the earlier one
 * aside and copies what only it held into the new one). Each host store is first opened with
 * mw_store_open (so that a file that is not a megawatt run store is refused before any
 * statement of ours reads it), its clock exchanges and channels are read, then the file is
 * ATTACHed to the output's connection and its windows, gaps, metadata and clock exchanges
 * are copied by INSERT ... SELECT, shifted by the host's offset (version 7: its clock knots
 * too, which readers map the windows' meter times through): SQLite moves the rows
 * without handing each to C, which is what makes 64 hosts x 1 h x 16 channels a matter of
 * seconds (tests/bench/bench_merge_hosts.c). Each host's windows are appended in key order:
 * its segments are numbered after the previous hosts' (segment + the largest segment so far,
 * so a merged run numbers segments run-wide, each still one meter's), and its channels come
 * after theirs; the index samples_time is made once at the end (one sort instead of a walk of
 * the whole B-tree per host).
 *
 * A clock step makes the host's offset ambiguous for the windows its recorder stamped with
 * one linear clock model over the step (mw_clock.h): the merge keeps the offset of the
 * longer side (more exchanges) and adds the step's size to the uncertainty of every window
 * of that host, so that nothing claims a precision it has not, and flags the run. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_err.h"
#include "mw_merge_hosts.h"

#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"
#include "store_internal.h"

#define HOST_MAX 64
/* what one host store may bring (a hostile one must not make the merge crawl): its
 * channels and meters, and the hosts of a run (record_hosts.h's MW_HOSTS_MAX) */
#define HOST_CHANNELS_MAX 64
#define HOST_METERS_MAX 4
#define HOSTS_MAX 1024

typedef struct {
    char name[HOST_MAX];
    int lost, steps, nsync, insane; /* insane: clock exchanges refused (out of range) */
    int64_t offset_ns, unc_ns, step_ns, step_at_ns;
    int64_t ref_ns; /* the host-clock time at which offset_ns holds */
    double drift;   /* the offset's change per ns of host clock (ppm x 1e-6) */
    int64_t align_p99_ns; /* align_p99's; -1 without exchanges */
} host_info;

/* What a clock exchange row may hold: a store is input, and a hostile one must not make
 * the arithmetic overflow (|offset| and the local time bounded, so that every difference
 * and sum below fits in int64; a drift beyond 1000 ppm is no clock's and is taken as 0). */
#define OFFSET_MAX_NS 1000000000000000LL /* 1e15 ns: 11.6 days */
#define UNC_MAX_NS 1000000000000LL       /* 1e12 ns: 1000 s */
#define LOCAL_MAX_NS 4000000000000000000LL /* 4e18 ns: year 2096 */
#define DRIFT_MAX 1e-3

/* the host's offset at its own clock's t_ns (in double: t_ns is any stored time) */
static int64_t offset_at(const host_info *h, int64_t t_ns)
{
    double d = h->drift * ((double)t_ns - (double)h->ref_ns); /* |d| <= 1e-3 x 1.9e19 */
    return h->offset_ns + (int64_t)llround(d);
}

int mw_merge_hosts_present(const char *rundir)
{
    char p[4200];
    struct stat sb;
    snprintf(p, sizeof p, "%s/hosts", rundir);
    return lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(((const host_info *)a)->name, ((const host_info *)b)->name);
}

/* the directories of RUNDIR/hosts (no links, no dot names), sorted; count or -1 */
static int list_hosts(const char *rundir, host_info **out, char *err, size_t errlen)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/hosts", rundir);
    DIR *d = opendir(p);
    if (!d) return mw_err(err, errlen, "%s: %s", p, strerror(errno));
    int n = 0, cap = 0;
    host_info *h = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        /* a host name as mw record accepts one (record_hosts.h); anything else is not ours */
        if (e->d_name[0] == '.' || e->d_name[0] == '-' || strlen(e->d_name) >= HOST_MAX ||
            strspn(e->d_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
                strlen(e->d_name))
            continue;
        struct stat sb;
        char q[4400];
        snprintf(q, sizeof q, "%.4200s/%.63s", p, e->d_name);
        if (lstat(q, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
        if (n == HOSTS_MAX) {
            closedir(d);
            free(h);
            return mw_err(err, errlen, "%s: more than %d host stores", p, HOSTS_MAX);
        }
        if (n == cap) { /* never NULL: a failed realloc dropped hosts without a word */
            cap = cap ? 2 * cap : 16;
            h = mw_xrealloc(h, (size_t)cap * sizeof *h);
        }
        memset(&h[n], 0, sizeof h[n]);
        snprintf(h[n++].name, HOST_MAX, "%.63s", e->d_name);
    }
    closedir(d);
    if (n) qsort(h, (size_t)n, sizeof *h, name_cmp);
    *out = h;
    return n;
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, i64_cmp);
    return v[n / 2];
}

/* The offset as a line over the host's clock: offset_ns at ref_ns (the exchanges' median
 * time) and drift, fitted by least squares when n >= 5 exchanges span 10 s or more (else
 * drift 0), the intercept then made the median of the residuals; returns the uncertainty:
 * the median exchange's bound plus the residuals' median absolute deviation.
 * The alignment error (how far the fitted offset is from the true one) at an exchange is at
 * most |its residual| + its bound (the true offset lies within its bound, Cristian); the
 * 99th percentile of that over the exchanges is h->align_p99_ns, the host's cross-host
 * alignment error p99 (plus a step's size, host_clock). */
static int64_t fit_side(const int64_t *off, const int64_t *unc, const int64_t *loc, int n,
                        host_info *h)
{
    int64_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp) return 0;
    memcpy(tmp, loc, (size_t)n * sizeof *tmp);
    h->ref_ns = median(tmp, n);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; k++) {
        double x = (double)(loc[k] - h->ref_ns), y = (double)(off[k] - off[0]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    double den = (double)n * sxx - sx * sx;
    h->drift = n >= 5 && loc[n - 1] - loc[0] >= 10000000000LL && den > 0
                   ? ((double)n * sxy - sx * sy) / den
                   : 0;
    if (!(fabs(h->drift) <= DRIFT_MAX)) h->drift = 0; /* NaN too */
    for (int k = 0; k < n; k++)
        tmp[k] = off[k] - (int64_t)llround(h->drift * (double)(loc[k] - h->ref_ns));
    h->offset_ns = median(tmp, n);
    for (int k = 0; k < n; k++) {
        int64_t r = off[k] - offset_at(h, loc[k]);
        tmp[k] = r < 0 ? -r : r;
    }
    int64_t mad = median(tmp, n);
    for (int k = 0; k < n; k++) tmp[k] += unc[k]; /* |residual| + bound: align_p99 */
    qsort(tmp, (size_t)n, sizeof *tmp, i64_cmp);
    h->align_p99_ns = tmp[(int)ceil(0.99 * n) - 1];
    memcpy(tmp, unc, (size_t)n * sizeof *tmp);
    int64_t u = median(tmp, n) + mad;
    free(tmp);
    return u;
}

/* The host's offset (its clock minus the launcher's), uncertainty and clock steps, from its
 * clock exchanges (clock_sync rows of rank -1: offset_ns there is the launcher's minus the
 * host's). 0, or -1 with the store's error. */
static int host_clock(mw_store *hs, host_info *h)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(mw_store_sqlite(hs),
                           "SELECT offset_ns, uncertainty_ns, local_ns FROM clock_sync WHERE rank = -1 "
                           "ORDER BY local_ns, id", -1, &q, NULL) != SQLITE_OK)
        return mw_store_db_error(hs, "reading the clock exchanges");
    int n = 0, cap = 0, rc;
    int64_t *off = NULL, *unc = NULL, *loc = NULL;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64; /* never NULL: a failure cut the exchanges short */
            off = mw_xrealloc(off, (size_t)cap * sizeof *off);
            unc = mw_xrealloc(unc, (size_t)cap * sizeof *unc);
            loc = mw_xrealloc(loc, (size_t)cap * sizeof *loc);
        }
        int64_t o = sqlite3_column_int64(q, 0), u = sqlite3_column_int64(q, 1),
                t = sqlite3_column_int64(q, 2);
        if (o <= -OFFSET_MAX_NS || o >= OFFSET_MAX_NS || u < 0 || u >= UNC_MAX_NS ||
            t <= -LOCAL_MAX_NS || t >= LOCAL_MAX_NS) {
            h->insane++;
            continue;
        }
        loc[n] = t;
        off[n] = -o;
        unc[n++] = u;
    }
    sqlite3_finalize(q);
    h->nsync = n;
    h->unc_ns = h->align_p99_ns = -1;
    if (n) {
        /* steps: a jump beyond MW_MERGE_STEP_MIN_NS and 20 x the two exchanges' bounds */
        int split = 0; /* the longer side of the (largest) step: [0, split) or [split, n) */
        int64_t umax = 0;
        for (int i = 0; i < n; i++) {
            if (unc[i] > umax) umax = unc[i];
            if (i == 0) continue;
            int64_t d = off[i] - off[i - 1], ad = d < 0 ? -d : d;
            if (ad > MW_MERGE_STEP_MIN_NS && ad > 20 * (unc[i] + unc[i - 1])) {
                h->steps++;
                if (ad > (h->step_ns < 0 ? -h->step_ns : h->step_ns)) {
                    h->step_ns = d;
                    h->step_at_ns = loc[i] - d - loc[0]; /* since the first exchange,
                                                            * on the clock before the step */
                    split = i;
                }
            }
        }
        int lo = 0, hi = n;
        if (h->steps) {
            if (split >= n - split) hi = split;
            else lo = split;
        }
        umax = fit_side(off + lo, unc + lo, loc + lo, hi - lo, h);
        h->unc_ns = umax + (h->step_ns < 0 ? -h->step_ns : h->step_ns);
        h->align_p99_ns += h->step_ns < 0 ? -h->step_ns : h->step_ns;
    }
    free(off);
    free(unc);
    free(loc);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : mw_store_db_error(hs, "reading the clock exchanges");
}

/* ---- the channels: every host's, numbered run-wide ------------------------------------- */

typedef struct {
    int host, old, new_, meter, meter_channel; /* meter: the host store's */
    char name[128], chost[128], pin[16];
    int has_chost, has_pin;
} chan_info;

/* a meter of a host store and its run-wide number (its list index + 1) */
typedef struct {
    int host, old;
    char name[128], port[256];
    int has_port;
} meter_info;

typedef struct {
    chan_info *c;
    int n, cap;
    meter_info *m;
    int nm, capm;
} chan_list;

static int meters_read(mw_store *hs, int host, chan_list *l)
{
    mw_run_cursor *c = mw_run_meters(hs);
    if (!c) return -1;
    mw_run_meter m;
    int rc;
    int mine = 0;
    while ((rc = mw_run_meter_next(c, &m)) == 1) {
        if (++mine > HOST_METERS_MAX) {
            rc = mw_store_bad_value(hs, "more than %d meters in one host store",
                                    HOST_METERS_MAX);
            break;
        }
        if (l->nm == l->capm) { /* mw_xrealloc: never NULL (mw_alloc.h) */
            l->capm = l->capm ? 2 * l->capm : 16;
            l->m = mw_xrealloc(l->m, (size_t)l->capm * sizeof *l->m);
        }
        meter_info *x = &l->m[l->nm++];
        memset(x, 0, sizeof *x);
        x->host = host;
        x->old = m.meter;
        snprintf(x->name, sizeof x->name, "%s", m.name);
        if ((x->has_port = m.port != NULL)) snprintf(x->port, sizeof x->port, "%s", m.port);
        else if (mw_store_meta_get(hs, "meter_port", x->port, sizeof x->port) == 0)
            x->has_port = 1; /* a recorder that did not fill the meters' port */
    }
    mw_run_close(c);
    return rc < 0 ? -1 : 0;
}

/* the run-wide number of host's meter old (0 when unknown) */
static int meter_new(const chan_list *l, int host, int old)
{
    for (int i = 0; i < l->nm; i++)
        if (l->m[i].host == host && l->m[i].old == old) return i + 1;
    return 0;
}

typedef struct {
    const char *name;
    int i;
} named;

static int named_cmp(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* dup[i] = 1 where names[i] is another's too (sorted: n log n, not n^2); 0, or -1 */
static int find_dups(named *v, int n, char *dup)
{
    qsort(v, (size_t)n, sizeof *v, named_cmp);
    memset(dup, 0, (size_t)n);
    for (int k = 1; k < n; k++)
        if (!strcmp(v[k].name, v[k - 1].name)) dup[v[k].i] = dup[v[k - 1].i] = 1;
    return 0;
}

/* the meters numbered run-wide, on their host, with the host's clock offset; a name that
 * two hosts use (a board without a serial) becomes "HOST:NAME" */
static int meters_write(mw_store *out, const chan_list *l, const host_info *h)
{
    named *v = malloc((size_t)(l->nm + 1) * sizeof *v);
    char *dup = malloc((size_t)l->nm + 1);
    int rc = v && dup ? 0 : mw_store_bad_value(out, "out of memory");
    for (int i = 0; !rc && i < l->nm; i++) v[i] = (named){l->m[i].name, i};
    if (!rc) find_dups(v, l->nm, dup);
    for (int i = 0; !rc && i < l->nm; i++) {
        const meter_info *x = &l->m[i];
        char name[256];
        snprintf(name, sizeof name, dup[i] ? "%s:%s" : "%.0s%s", h[x->host].name, x->name);
        if (mw_store_meter_add(out, i + 1, name, h[x->host].name, x->has_port ? x->port : NULL,
                               h[x->host].offset_ns, h[x->host].unc_ns < 0 ? 0
                                                                            : h[x->host].unc_ns))
            rc = -1;
    }
    free(v);
    free(dup);
    return rc;
}

static int chans_read(mw_store *hs, int host, chan_list *l)
{
    mw_run_cursor *c = mw_run_channels(hs);
    if (!c) return -1;
    mw_run_channel ch;
    int rc;
    int mine = 0;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        if (++mine > HOST_CHANNELS_MAX) {
            rc = mw_store_bad_value(hs, "more than %d channels in one host store",
                                    HOST_CHANNELS_MAX);
            break;
        }
        if (l->n == l->cap) { /* mw_xrealloc: never NULL (mw_alloc.h) */
            l->cap = l->cap ? 2 * l->cap : 64;
            l->c = mw_xrealloc(l->c, (size_t)l->cap * sizeof *l->c);
        }
        chan_info *x = &l->c[l->n++];
        memset(x, 0, sizeof *x);
        x->host = host;
        x->old = ch.channel;
        x->meter = ch.meter;
        x->meter_channel = ch.meter_channel;
        snprintf(x->name, sizeof x->name, "%s", ch.name);
        if ((x->has_chost = ch.host != NULL)) snprintf(x->chost, sizeof x->chost, "%s", ch.host);
        if ((x->has_pin = ch.pin != NULL)) snprintf(x->pin, sizeof x->pin, "%s", ch.pin);
    }
    mw_run_close(c);
    return rc < 0 ? -1 : 0;
}

/* numbers 1..N in list order and adds them to out, "HOST:NAME" where a name is not unique */
static int chans_write(mw_store *out, chan_list *l, const host_info *h)
{
    named *v = malloc((size_t)(l->n + 1) * sizeof *v);
    char *dup = malloc((size_t)l->n + 1);
    int rc = v && dup ? 0 : mw_store_bad_value(out, "out of memory");
    for (int i = 0; !rc && i < l->n; i++) v[i] = (named){l->c[i].name, i};
    if (!rc) find_dups(v, l->n, dup);
    for (int i = 0; !rc && i < l->n; i++) {
        chan_info *x = &l->c[i];
        char name[256];
        snprintf(name, sizeof name, dup[i] ? "%s:%s" : "%.0s%s", h[x->host].name, x->name);
        x->new_ = i + 1;
        int m = meter_new(l, x->host, x->meter);
        if (m < 1)
            rc = mw_store_bad_value(out, "host %s: channel %d: no meter %d", h[x->host].name,
                                    x->old, x->meter);
        else if (mw_store_channel_add_meter(out, x->new_, name, x->has_chost ? x->chost : NULL,
                                            x->has_pin ? x->pin : NULL, m,
                                            x->meter_channel > 0 ? x->meter_channel
                                                                 : x->old) != 0)
            rc = -1;
    }
    free(v);
    free(dup);
    return rc;
}

/* ---- the copy ------------------------------------------------------------------------- */

static int exec(mw_store *out, const char *sql)
{
    if (sqlite3_exec(mw_store_sqlite(out), sql, NULL, NULL, NULL) != SQLITE_OK)
        return mw_store_db_error(out, "merging");
    return 0;
}

/* one statement with ?1 = offset (ns), ?2 = uncertainty (ns), ?3 = host name, ?4 = the
 * segments before this host's, ?7 = delta (copy_windows_sql) */
static int copy_stmt(mw_store *out, const char *sql, const host_info *h, int64_t seg_base,
                     int64_t delta)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(mw_store_sqlite(out), sql, -1, &q, NULL) != SQLITE_OK)
        return mw_store_db_error(out, "merging");
    sqlite3_bind_int64(q, 1, h->offset_ns);
    sqlite3_bind_int64(q, 2, h->unc_ns < 0 ? 0 : h->unc_ns);
    sqlite3_bind_text(q, 3, h->name, -1, SQLITE_TRANSIENT);
    int np = sqlite3_bind_parameter_count(q);
    if (np >= 4) sqlite3_bind_int64(q, 4, seg_base);
    if (np >= 6) {
        sqlite3_bind_double(q, 5, h->drift);
        sqlite3_bind_int64(q, 6, h->ref_ns);
    }
    if (np >= 7) sqlite3_bind_int64(q, 7, delta);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : mw_store_db_error(out, "merging");
}

/* A host's windows (version 6: table windows). ?1 offset, ?2 uncertainty, ?4 the segments
 * before this host's, ?5/?6 the drift (the _const forms have none), ?7 what the host's
 * channel numbers become (new = old + ?7, every channel of the host: rows are copied whole,
 * slots and all, 16 channels a row). A window's meter becomes the merged run's (temp.mmap). */
#define COPY_WIN_INTO                                                                              \
    "INSERT INTO main.windows (meter, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns,"        \
    " uncertainty_ns, channel0" STORE_SLOTS(STORE_SLOT_NAMES) ")"
#define COPY_DRIFT(col) " w." col " - ?1 - CAST(round(?5 * (w." col " - ?6)) AS INTEGER)"
static const char copy_windows_sql[] =
    COPY_WIN_INTO " SELECT coalesce(mm.new, 0), w.segment + ?4, w.seq, w.meter_t0_us,"
    " w.meter_t1_us," COPY_DRIFT("t0_ns") "," COPY_DRIFT("t1_ns") ", w.uncertainty_ns + ?2,"
    " w.channel0 + ?7" STORE_SLOTS(STORE_SLOT_WCOLS) " FROM h.windows w LEFT JOIN temp.mmap mm"
    " ON mm.old = w.meter ORDER BY w.id";
static const char copy_windows_sql_const[] =
    COPY_WIN_INTO " SELECT coalesce(mm.new, 0), w.segment + ?4, w.seq, w.meter_t0_us,"
    " w.meter_t1_us, w.t0_ns - ?1, w.t1_ns - ?1, w.uncertainty_ns + ?2,"
    " w.channel0 + ?7" STORE_SLOTS(STORE_SLOT_WCOLS) " FROM h.windows w LEFT JOIN temp.mmap mm"
    " ON mm.old = w.meter ORDER BY w.id";
/* Any other host store (version 5 or older, or channels not numbered old + a constant): one
 * row per sample, read through h.samples (the table, or version 6's view), one slot used;
 * the samples of a channel the host store does not list are left out. */
#define COPY_SAMPLES_INTO                                                                          \
    "INSERT INTO main.windows (meter, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns,"        \
    " uncertainty_ns, channel0, p1, v1, i1, pf1, me1, e1, f1)"
#define COPY_SAMPLES_FROM                                                                          \
    " s.uncertainty_ns + ?2, m.new, s.power_mw, s.vrms_mv, s.irms_ua, s.pf_milli,"                  \
    " s.meter_energy_mj, s.energy_mj, s.flags FROM h.samples s CROSS JOIN temp.chmap m"            \
    " ON m.old = s.channel ORDER BY s.segment, s.seq, s.channel"
static const char copy_samples_sql[] =
    COPY_SAMPLES_INTO " SELECT coalesce((SELECT meter FROM main.channels c WHERE c.channel ="
    " m.new), 0), s.segment + ?4, s.seq, s.meter_t0_us, s.meter_t1_us,"
    " s.t0_ns - ?1 - CAST(round(?5 * (s.t0_ns - ?6)) AS INTEGER),"
    " s.t1_ns - ?1 - CAST(round(?5 * (s.t1_ns - ?6)) AS INTEGER)," COPY_SAMPLES_FROM;
static const char copy_samples_sql_const[] =
    COPY_SAMPLES_INTO " SELECT coalesce((SELECT meter FROM main.channels c WHERE c.channel ="
    " m.new), 0), s.segment + ?4, s.seq, s.meter_t0_us, s.meter_t1_us, s.t0_ns - ?1,"
    " s.t1_ns - ?1," COPY_SAMPLES_FROM;

/* A version 7 host's clock knots (its segments' final clock mappings: readers map the
 * windows' meter times through them), moved as its windows are: meter, segment, the host
 * time by the offset and drift, the slope by the drift, the uncertainty by the host's. */
static const char copy_knots_sql[] =
    "INSERT OR IGNORE INTO main.clock_knots (meter, segment, x_us, t_ns, slope, unc_ns) SELECT"
    " coalesce(mm.new, 0), k.segment + ?4, k.x_us,"
    " k.t_ns - ?1 - CAST(round(?5 * (k.t_ns - ?6)) AS INTEGER), k.slope * (1.0 - ?5),"
    " k.unc_ns + ?2 FROM h.clock_knots k LEFT JOIN temp.mmap mm ON mm.old = k.meter"
    " ORDER BY k.meter, k.segment, k.x_us";

/* with the drift (?5 per ns of host clock from ?6) */
static const char *const copy_sql[] = {
    /* a gap of the host's whole recording concerns each of its meters, and only those */
    "INSERT INTO main.gaps (start_ns, end_ns, reason, meter) SELECT"
    " g.start_ns - ?1 - CAST(round(?5 * (g.start_ns - ?6)) AS INTEGER),"
    " g.end_ns - ?1 - CAST(round(?5 * (g.end_ns - ?6)) AS INTEGER),"
    " ?3 || ': ' || g.reason, mm.new FROM h.gaps g JOIN temp.mmap mm"
    " ON g.meter IS NULL OR g.meter = mm.old ORDER BY g.start_ns, g.id, mm.new",
    "INSERT OR REPLACE INTO main.meta (key, value) SELECT 'host.' || ?3 || ':' || key, value"
    " FROM h.meta",
    "INSERT INTO main.clock_sync (rank, host, pid, local_ns, offset_ns, uncertainty_ns)"
    " SELECT rank, host, pid, local_ns, offset_ns, uncertainty_ns FROM h.clock_sync"
    " WHERE rank = -1",
    NULL};
/* the same with a constant offset (no drift: a cheaper expression per row) */
static const char *const copy_sql_const[] = {
    /* a gap of the host's whole recording concerns each of its meters, and only those */
    "INSERT INTO main.gaps (start_ns, end_ns, reason, meter) SELECT"
    " g.start_ns - ?1,"
    " g.end_ns - ?1,"
    " ?3 || ': ' || g.reason, mm.new FROM h.gaps g JOIN temp.mmap mm"
    " ON g.meter IS NULL OR g.meter = mm.old ORDER BY g.start_ns, g.id, mm.new",
    "INSERT OR REPLACE INTO main.meta (key, value) SELECT 'host.' || ?3 || ':' || key, value"
    " FROM h.meta",
    "INSERT INTO main.clock_sync (rank, host, pid, local_ns, offset_ns, uncertainty_ns)"
    " SELECT rank, host, pid, local_ns, offset_ns, uncertainty_ns FROM h.clock_sync"
    " WHERE rank = -1",
    NULL};

/* 1 when host i's windows can be copied as rows (version 6, table windows): its channels
 * become old + *delta, the same delta for every one, and it holds no sample of a channel
 * outside them (those are left out, as their channel is unknown); else 0: sample by sample. */
static int rows_whole(mw_store *out, const chan_list *l, int i, int64_t *delta)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int n = 0;
    for (int k = 0; k < l->n; k++) {
        if (l->c[k].host != i) continue;
        int64_t d = (int64_t)l->c[k].new_ - l->c[k].old;
        if (n++ && d != *delta) return 0;
        *delta = d;
        if (l->c[k].old < lo) lo = l->c[k].old;
        if (l->c[k].old > hi) hi = l->c[k].old;
    }
    if (!n || hi - lo + 1 != n) return 0; /* none, or not one run of numbers */
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(mw_store_sqlite(out),
                           "SELECT NOT EXISTS (SELECT 1 FROM h.windows WHERE channel0 < ?1 OR "
                           "channel0 + ("
                           "CASE WHEN p16 NOT NULL THEN 15 WHEN p15 NOT NULL THEN 14 WHEN p14 NOT NULL THEN 13"
                           " WHEN p13 NOT NULL THEN 12 WHEN p12 NOT NULL THEN 11 WHEN p11 NOT NULL THEN 10"
                           " WHEN p10 NOT NULL THEN 9 WHEN p9 NOT NULL THEN 8 WHEN p8 NOT NULL THEN 7"
                           " WHEN p7 NOT NULL THEN 6 WHEN p6 NOT NULL THEN 5 WHEN p5 NOT NULL THEN 4"
                           " WHEN p4 NOT NULL THEN 3 WHEN p3 NOT NULL THEN 2 WHEN p2 NOT NULL THEN 1 ELSE 0 END"
                           ") > ?2) FROM h.sqlite_schema WHERE type = 'table' AND name = "
                           "'windows'",
                           -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(q, 1, lo);
    sqlite3_bind_int64(q, 2, hi);
    int ok = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    return ok;
}

/* host i's rows into out (out has no open transaction) */
static int copy_host(mw_store *out, const char *path, const host_info *h, int i,
                     const chan_list *l, int64_t *seg_max)
{
    sqlite3 *db = mw_store_sqlite(out);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "ATTACH ?1 AS h", -1, &q, NULL) != SQLITE_OK)
        return mw_store_db_error(out, "attaching a host store");
    sqlite3_bind_text(q, 1, path, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) return mw_store_db_error(out, "attaching a host store");
    q = NULL;
    rc = exec(out, "CREATE TEMP TABLE IF NOT EXISTS chmap (old INTEGER PRIMARY KEY, new INTEGER);"
                   "CREATE TEMP TABLE IF NOT EXISTS mmap (old INTEGER PRIMARY KEY, new INTEGER);"
                   "DELETE FROM temp.chmap; DELETE FROM temp.mmap");
    if (!rc && sqlite3_prepare_v2(db, "INSERT INTO temp.chmap VALUES (?1, ?2)", -1, &q, NULL) !=
                   SQLITE_OK)
        rc = mw_store_db_error(out, "merging");
    for (int k = 0; !rc && k < l->n; k++) {
        if (l->c[k].host != i) continue;
        sqlite3_reset(q);
        sqlite3_bind_int(q, 1, l->c[k].old);
        sqlite3_bind_int(q, 2, l->c[k].new_);
        if (sqlite3_step(q) != SQLITE_DONE) rc = mw_store_db_error(out, "merging");
    }
    sqlite3_finalize(q);
    q = NULL;
    if (!rc && sqlite3_prepare_v2(db, "INSERT INTO temp.mmap VALUES (?1, ?2)", -1, &q, NULL) !=
                   SQLITE_OK)
        rc = mw_store_db_error(out, "merging");
    for (int k = 0; !rc && k < l->nm; k++) {
        if (l->m[k].host != i) continue;
        sqlite3_reset(q);
        sqlite3_bind_int(q, 1, l->m[k].old);
        sqlite3_bind_int(q, 2, k + 1);
        if (sqlite3_step(q) != SQLITE_DONE) rc = mw_store_db_error(out, "merging");
    }
    sqlite3_finalize(q);
    /* the segments so far (*seg_base), and after the copy those of the rows it appended
     * (rowids above id0): windows has no index on segment, and a scan of the whole output
     * per host would make the merge quadratic in the hosts */
    int64_t seg_base = *seg_max, delta = 0, id0 = 0;
    if (!rc && sqlite3_prepare_v2(db, "SELECT coalesce(max(id), 0) FROM main.windows", -1, &q,
                                  NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW) id0 = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    int whole = !rc && rows_whole(out, l, i, &delta);
    if (!rc) rc = mw_store_write_begin(out);
    const char *wsql = h->drift != 0 ? (whole ? copy_windows_sql : copy_samples_sql)
                                     : (whole ? copy_windows_sql_const : copy_samples_sql_const);
    if (!rc) rc = copy_stmt(out, wsql, h, seg_base, delta);
    int knots = 0;
    if (!rc && sqlite3_prepare_v2(db, "SELECT count(*) FROM h.sqlite_schema WHERE type = 'table' "
                                      "AND name = 'clock_knots'", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW) knots = sqlite3_column_int(q, 0) > 0;
        sqlite3_finalize(q);
    }
    if (!rc && knots) rc = copy_stmt(out, copy_knots_sql, h, seg_base, delta);
    const char *const *sql = h->drift != 0 ? copy_sql : copy_sql_const;
    for (int k = 0; !rc && sql[k]; k++) rc = copy_stmt(out, sql[k], h, seg_base, delta);
    if (!rc && sqlite3_prepare_v2(db, "SELECT max(segment) FROM main.windows WHERE id > ?1", -1,
                                  &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id0);
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL &&
            sqlite3_column_int64(q, 0) > *seg_max)
            *seg_max = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    if (!rc) rc = mw_store_commit(out);
    sqlite3_exec(db, "DETACH h", NULL, NULL, NULL);
    return rc;
}

/* ---- the merge -------------------------------------------------------------------------- */

static void sayf(void (*say)(void *, const char *), void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sayf(void (*say)(void *, const char *), void *ctx, const char *fmt, ...)
{
    char b[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (say) say(ctx, b);
}

/* pass 1: host i's status, clock and channels; lost hosts are marked */
static void read_host(const char *rundir, host_info *h, int i, chan_list *l, int64_t *start,
                      void (*say)(void *, const char *), void *ctx)
{
    char dir[4400], err[4600], status[128] = "";
    snprintf(dir, sizeof dir, "%s/hosts/%s", rundir, h[i].name);
    mw_store *hs = mw_store_exists(dir) ? mw_store_open(dir, err, sizeof err) : NULL;
    if (!hs) {
        h[i].lost = 2; /* nothing to copy */
        sayf(say, ctx, "host %s lost: %s", h[i].name,
             mw_store_exists(dir) ? err : "its agent made no store");
        return;
    }
    int64_t s0;
    if (mw_store_meta_get(hs, "status", status, sizeof status) != 0 ||
        !strcmp(status, "recording")) {
        h[i].lost = 1;
        sayf(say, ctx, "host %s lost: its recording did not end (agent or host died); its "
                       "windows up to then are kept", h[i].name);
    }
    int n0 = l->n, nm0 = l->nm;
    if (host_clock(hs, &h[i]) != 0 || meters_read(hs, i, l) != 0 || chans_read(hs, i, l) != 0) {
        sayf(say, ctx, "host %s lost: %s", h[i].name, mw_store_error(hs));
        h[i].lost = 2;
        l->n = n0, l->nm = nm0; /* none of its channels or meters */
    } else if (!h[i].nsync) {
        sayf(say, ctx, "host %s: no clock exchange: its windows are kept on its own clock "
                       "(uncertainty unknown)", h[i].name);
    }
    if (h[i].insane)
        sayf(say, ctx, "host %s: %d clock exchange%s out of range (|offset| >= 1e15 ns, "
                       "uncertainty not in [0, 1e12) ns or an absurd time): not used",
             h[i].name, h[i].insane, h[i].insane == 1 ? "" : "s");
    if (h[i].steps)
        sayf(say, ctx, "host %s: clock stepped by %+.3f s at %.1f s (%d step%s): its windows "
                       "keep the offset of the longer side, uncertainty +%.3f s",
             h[i].name, (double)h[i].step_ns / 1e9, (double)h[i].step_at_ns / 1e9,
             h[i].steps, h[i].steps == 1 ? "" : "s",
             (double)(h[i].step_ns < 0 ? -h[i].step_ns : h[i].step_ns) / 1e9);
    if (!h[i].lost || h[i].lost == 1)
        if (mw_store_start_ns(hs, &s0) == 0 && s0 > 0 &&
            (*start < 0 || s0 - offset_at(&h[i], s0) < *start))
            *start = s0 - offset_at(&h[i], s0);
    mw_store_close(hs);
}

static int meta_i64(mw_store *out, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    return mw_store_meta_set(out, key, b);
}

/* the run's meta: hosts, clocks, status */
static int write_meta(mw_store *out, const host_info *h, int n, const char *status,
                      mw_merge_hosts_stats *st, int64_t start)
{
    char key[200];
    int rc = meta_i64(out, "hosts", n);
    for (int i = 0; !rc && i < n; i++) {
        snprintf(key, sizeof key, "clock_offset.%s_ns", h[i].name);
        rc = meta_i64(out, key, h[i].offset_ns);
        snprintf(key, sizeof key, "clock_uncertainty.%s_ns", h[i].name);
        if (!rc) rc = meta_i64(out, key, h[i].unc_ns);
        char v[64];
        snprintf(key, sizeof key, "clock_drift.%s_ppm", h[i].name);
        snprintf(v, sizeof v, "%.3f", h[i].drift * 1e6);
        if (!rc) rc = mw_store_meta_set(out, key, v);
        snprintf(key, sizeof key, "clock_align_p99.%s_ns", h[i].name);
        if (!rc) rc = meta_i64(out, key, h[i].align_p99_ns);
        int64_t a = h[i].align_p99_ns; /* -1 (unknown, a host not lost) wins over any bound */
        if (st->align_p99_max_ns >= 0 && (a > st->align_p99_max_ns || (a < 0 && !h[i].lost))) {
            st->align_p99_max_ns = a;
            snprintf(st->align_worst, sizeof st->align_worst, "%s", h[i].name);
        }
        if (h[i].lost) {
            size_t len = strlen(st->lost_names);
            snprintf(st->lost_names + len, sizeof st->lost_names - len, "%s%s",
                     len ? ", " : "", h[i].name);
            st->lost++;
        }
        st->steps += h[i].steps;
    }
    if (st->lost)
        snprintf(st->status, sizeof st->status, "%s, partial: host%s %s lost",
                 status ? status : "complete", st->lost > 1 ? "s" : "", st->lost_names);
    else
        snprintf(st->status, sizeof st->status, "%s", status ? status : "complete");
    if (!rc) rc = mw_store_meta_set(out, "hosts_lost", st->lost_names);
    if (!rc) rc = meta_i64(out, "clock_steps", st->steps);
    if (!rc) rc = mw_store_meta_set(out, "status", st->status);
    if (!rc) rc = mw_store_meta_set(out, "channels_from", "hosts (mw merge)");
    if (!rc && start > 0) rc = meta_i64(out, "start_ns", start);
    return rc;
}

/* during the copy: no fsync (a merge cut short is simply redone: the hosts' stores are the
 * record), a larger page cache, and no samples_time index (each host's windows span the
 * whole run: kept, that index would be walked end to end once per host) */
static const char drop_idx[] = "PRAGMA synchronous = OFF; PRAGMA cache_size = -131072;"
                               "DROP INDEX IF EXISTS windows_time";
static const char make_idx[] =
    STORE_WINDOWS_INDEX ";"
    "INSERT OR REPLACE INTO meta (key, value) SELECT 'end_ns', max("
    STORE_KNOT_T("k1", "w", "meter_t1_us", "t1_ns") ") FROM windows w"
    STORE_KNOT_JOIN("k1", "w", "meter_t1_us") " HAVING count(*) > 0";

void mw_merge_hosts_align_text(const mw_merge_hosts_stats *st, char *out, size_t n)
{
    if (!st->align_worst[0]) /* no host gave a figure: nothing to claim */
        snprintf(out, n, "cross-host alignment p99 unknown (no host's clock was measured)");
    else if (st->align_p99_max_ns < 0)
        snprintf(out, n, "cross-host alignment p99 unknown (host %s: no clock exchanges)",
                 st->align_worst);
    else
        snprintf(out, n, "cross-host alignment p99 <= %.1f us (host %s)",
                 (double)st->align_p99_max_ns / 1e3, st->align_worst);
}

/* ---- the Slurm job ----------------------------------------------------------------------- */

/* The job the host stores were recorded in (their slurm_* meta, record_slurm.c) as the merged
 * run's, so that mw jobs counts it: slurm_job_id, slurm_cluster, slurm_job_nodelist and
 * slurm_nodes when every host store that has the key agrees (none is taken when they differ:
 * stores of several jobs), and slurm_node_channels / slurm_nodes_without_channel made anew
 * over the merged channels: a channel measures node N when its host is N, or, without a host,
 * when its meter's host is N (a meter measures the host it hangs on). The hosts' own step
 * (the agents') is left as host.HOST:slurm_step_id; mw record --meter-hosts adds its own. */
static const char slurm_same_sql[] =
    "SELECT count(DISTINCT value), min(value) FROM meta WHERE key LIKE 'host.%:' || ?1";
static const char slurm_map_sql[] =
    "SELECT group_concat(name, '+') FROM (SELECT c.name FROM channels c"
    " JOIN meters m ON m.meter = c.meter WHERE coalesce(c.host, m.host) = ?1"
    " ORDER BY c.channel)";

static int one_text(mw_store *out, const char *sql, const char *arg, char *v, size_t n)
{
    sqlite3_stmt *q;
    v[0] = '\0';
    if (sqlite3_prepare_v2(mw_store_sqlite(out), sql, -1, &q, NULL) != SQLITE_OK)
        return mw_store_db_error(out, "merging");
    sqlite3_bind_text(q, 1, arg, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(q);
    int col = sqlite3_column_count(q) - 1; /* the last column; the first a count if two */
    if (rc == SQLITE_ROW && (col == 0 || sqlite3_column_int(q, 0) == 1) &&
        sqlite3_column_text(q, col))
        snprintf(v, n, "%s", (const char *)sqlite3_column_text(q, col));
    sqlite3_finalize(q);
    return rc == SQLITE_ROW ? 0 : mw_store_db_error(out, "merging");
}

static int slurm_meta(mw_store *out)
{
    static const char *const keys[] = {"slurm_job_id", "slurm_cluster", "slurm_job_nodelist",
                                       "slurm_nodes"};
    static char v[65536], map[65536], missing[16384];
    int rc = 0;
    for (size_t k = 0; !rc && k < sizeof keys / sizeof *keys; k++) {
        rc = one_text(out, slurm_same_sql, keys[k], v, sizeof v);
        if (!rc && v[0]) rc = mw_store_meta_set(out, keys[k], v);
        if (!rc && k == 0 && !v[0]) return 0; /* not one job's */
    }
    if (rc || mw_store_meta_get(out, "slurm_nodes", v, sizeof v) != 0 || !v[0]) return rc;
    size_t lm = 0, lx = 0;
    map[0] = missing[0] = '\0';
    for (char *save = NULL, *node = strtok_r(v, ",", &save); !rc && node;
         node = strtok_r(NULL, ",", &save)) {
        char ch[4096];
        rc = one_text(out, slurm_map_sql, node, ch, sizeof ch);
        int w = snprintf(map + lm, sizeof map - lm, "%s%s=%s", lm ? " " : "", node,
                         ch[0] ? ch : "-");
        if (w > 0 && (size_t)w < sizeof map - lm) lm += (size_t)w;
        if (ch[0]) continue;
        w = snprintf(missing + lx, sizeof missing - lx, "%s%s", lx ? "," : "", node);
        if (w > 0 && (size_t)w < sizeof missing - lx) lx += (size_t)w;
    }
    if (!rc) rc = mw_store_meta_set(out, "slurm_node_channels", map);
    if (!rc) rc = mw_store_meta_set(out, "slurm_nodes_without_channel", missing);
    return rc;
}

int mw_merge_hosts(const char *rundir, const char *status, mw_merge_hosts_stats *st,
                   void (*say)(void *ctx, const char *line), void *ctx, char *err,
                   size_t errlen)
{
    memset(st, 0, sizeof *st);
    host_info *h = NULL;
    int n = list_hosts(rundir, &h, err, errlen);
    if (n <= 0) {
        free(h);
        return n < 0 ? -1 : mw_err(err, errlen, "%s/hosts: no host store to merge", rundir);
    }
    chan_list l = {0};
    int64_t start = -1;
    for (int i = 0; i < n; i++) read_host(rundir, h, i, &l, &start, say, ctx);
    mw_store *out = mw_store_create(rundir, 1, err, errlen);
    int rc = out ? 0 : -1;
    if (!rc) rc = meters_write(out, &l, h);
    if (!rc) rc = chans_write(out, &l, h);
    if (!rc) rc = mw_store_commit(out);
    if (!rc) rc = exec(out, drop_idx);
    int64_t seg_max = 0;
    for (int i = 0; !rc && i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/hosts/%s/%s", rundir, h[i].name, MW_STORE_DB_NAME);
        if (h[i].lost < 2) rc = copy_host(out, path, &h[i], i, &l, &seg_max);
        if (!rc && h[i].steps) {
            char key[200], v[100];
            snprintf(key, sizeof key, "clock_step.%s", h[i].name);
            snprintf(v, sizeof v, "%+.3f s at %.1f s", (double)h[i].step_ns / 1e9,
                     (double)h[i].step_at_ns / 1e9);
            rc = mw_store_meta_set(out, key, v);
        }
    }
    if (!rc) rc = write_meta(out, h, n, status, st, start);
    if (!rc) { /* the rate of the first host's meter stands for the run's (analysis) */
        char key[200], v[64];
        snprintf(key, sizeof key, "host.%s:meter_rate_hz", h[0].name);
        if (mw_store_meta_get(out, key, v, sizeof v) == 0)
            rc = mw_store_meta_set(out, "meter_rate_hz", v);
    }
    if (!rc) rc = slurm_meta(out);
    if (!rc) rc = mw_store_commit(out);
    if (!rc) rc = exec(out, make_idx);
    mw_run_counts c;
    if (!rc && mw_run_count(out, &c) == 0) {
        st->samples = c.samples;
        st->gaps = c.gaps;
        st->channels = (int)c.channels;
    }
    st->hosts = n;
    if (rc && out) mw_store_error_to(out, err, errlen);
    mw_store_close(out);
    free(l.c);
    free(l.m);
    free(h);
    return rc;
}

/* ---- merging again ------------------------------------------------------------------------ */

/* what only the earlier trace.db holds: the launcher's metadata (not the merge's own keys:
 * those are made afresh), the probe's phases and their clock samples */
static const char carry_sql[] =
    "INSERT OR IGNORE INTO main.meta (key, value) SELECT key, value FROM old.meta"
    " WHERE key NOT LIKE 'host.%' AND key NOT LIKE 'clock!_%' ESCAPE '!';"
    "INSERT INTO main.phases (id, rank, host, thread, kind, name, start_ns, end_ns, bytes, pid,"
    " peer) SELECT id, rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, peer"
    " FROM old.phases;"
    "INSERT INTO main.phase_names (id, kind, name) SELECT id, kind, name FROM old.phase_names;"
    "INSERT INTO main.phase_blocks (id, rank, host, pid, thread, start_ns, end_ns, events, data)"
    " SELECT id, rank, host, pid, thread, start_ns, end_ns, events, data FROM old.phase_blocks;"
    "INSERT INTO main.clock_sync (rank, host, pid, local_ns, offset_ns, uncertainty_ns)"
    " SELECT rank, host, pid, local_ns, offset_ns, uncertainty_ns FROM old.clock_sync"
    " WHERE rank <> -1";

/* renames a -> b with their -wal and -shm (those that exist); 0, or -1 */
static int rename3(const char *a, const char *b)
{
    static const char *const sfx[] = {"", "-wal", "-shm"};
    for (int k = 0; k < 3; k++) {
        char x[4400], y[4400];
        snprintf(x, sizeof x, "%s%s", a, sfx[k]);
        snprintf(y, sizeof y, "%s%s", b, sfx[k]);
        if (k) unlink(y);
        if (rename(x, y) != 0 && (k == 0 || errno != ENOENT)) return -1;
    }
    return 0;
}

static int carry_over(const char *rundir, const char *keep, char *err, size_t errlen)
{
    mw_store *out = mw_store_open_write(rundir, err, errlen);
    if (!out) return -1;
    sqlite3 *db = mw_store_sqlite(out);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS old", -1, &q, NULL) == SQLITE_OK ? 0 : -1;
    if (!rc) {
        sqlite3_bind_text(q, 1, keep, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(q);
    if (rc) rc = mw_store_db_error(out, "reading the earlier trace.db");
    if (!rc) rc = mw_store_write_begin(out);
    if (!rc) rc = exec(out, carry_sql);
    if (!rc) rc = mw_store_commit(out);
    sqlite3_exec(db, "DETACH old", NULL, NULL, NULL);
    if (rc) mw_store_error_to(out, err, errlen);
    mw_store_close(out);
    return rc;
}

int mw_merge_hosts_again(const char *rundir, mw_merge_hosts_stats *st,
                         void (*say)(void *ctx, const char *line), void *ctx, char *err,
                         size_t errlen)
{
    char db[4300], keep[4400], status[128] = "";
    mw_store *old = mw_store_exists(rundir) ? mw_store_open(rundir, err, errlen) : NULL;
    if (!old) return mw_merge_hosts(rundir, NULL, st, say, ctx, err, errlen); /* none, or junk */
    mw_store_meta_get(old, "status", status, sizeof status);
    mw_store_close(old);
    status[strcspn(status, ",")] = '\0'; /* "interrupted, partial: ..." -> "interrupted" */
    snprintf(db, sizeof db, "%s/%s", rundir, MW_STORE_DB_NAME);
    snprintf(keep, sizeof keep, "%s.premerge", db);
    struct stat sb;
    if (lstat(keep, &sb) == 0)
        return mw_err(err, errlen, "%s: exists (an earlier merge cut short?): nothing done; "
                                   "move it back to %s or remove it", keep, db);
    if (rename3(db, keep) != 0)
        return mw_err(err, errlen, "%s: cannot be set aside: %s", db, strerror(errno));
    int rc = mw_merge_hosts(rundir, status[0] ? status : NULL, st, say, ctx, err, errlen);
    if (!rc) rc = carry_over(rundir, keep, err, errlen);
    if (rc) { /* the earlier trace.db back, whole */
        size_t n = strlen(err);
        if (rename3(keep, db) == 0)
            snprintf(err + n, errlen - n, " (the earlier %s kept)", db);
        else
            snprintf(err + n, errlen - n, " (the earlier trace.db is %s)", keep);
        return -1;
    }
    static const char *const sfx[] = {"", "-wal", "-shm"};
    for (int k = 0; k < 3; k++) {
        char x[4500];
        snprintf(x, sizeof x, "%s%s", keep, sfx[k]);
        unlink(x);
    }
    return 0;
}
