/* cmd_analyze — "mw analyze RUNDIR... [--json] [--from S --to S] [--idle-power W]": energy
 * per channel, phase, rank and node, Pow_idle/Pow_work three ways, and mean +- sd across
 * runs (docs/analysis.md describes every figure and JSON key).
 *
 * A run is read inside one read transaction (one snapshot): its channels, then all its
 * samples in one scan of the samples table in primary-key order (segment, seq, channel),
 * four columns, each row appended to its channel's window array (24 bytes a window; a day
 * of 16 channels at 4 Hz is 130 MB), then the meter's counter at each channel's first and
 * last window of the range. That scan reads the table's pages in order; asking each channel
 * through the (channel, t1_ns) index instead costs a primary-key lookup per row, about six
 * times slower (tests/bench/bench_analyze.c measures both). Phases come from four ordered
 * queries: the hosts, every interval by (kind, name, host, start), each rank's span, and
 * each rank's working intervals. Then one channel at a time: its windows become an exact
 * step-function trace (models/energy.h) from which every energy is at(b) - at(a) in integer
 * picojoules, so phase energies add up exactly; its window powers go to the three level estimators
 * (models/levels.h); its windows are freed.
 *
 * Definitions. The range is [--from, --to) in s since the run's start (meta start_ns, else
 * the first sample), open-ended when not given. Phases of kinds mark and counter are
 * instants and values, not spans, and are left out. A phase group is one (kind, name); on
 * a channel it is the union of its intervals over the ranks that channel measures: a
 * channel with a host measures the ranks on that host (phases.host = channels.host), a
 * channel without one (a switch, or every channel of a run whose channels name no host)
 * measures all ranks; the recorder's own phases (kind mw) cover every channel. A rank maps
 * to the channels of its host, or to the host-less channels when its host has none. A
 * window is "working" for the phase split when the union of the compute, user, omp, gpu
 * and cuda phases of the channel's ranks (not user phases named idle... or wait...) covers
 * more than half of it. The dynamic energy's
 * idle power is --idle-power, else the mean power over the mw phases idle-before and
 * idle-after (the whole run's, whatever the range), else there is none (null).
 *
 * Output: every number is formatted once (exact integers: energies from pJ, times from ns,
 * rounded half away from zero; estimates with printf) and never NaN: a figure that does
 * not exist is "-" in text and null in JSON. Unusable input (not a run, an unreadable or
 * malformed database, no samples, an empty range) is a one-line message and exit 2, before
 * anything is printed. */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "mw_alloc.h"
#include "cli.h"
#include "mw_phase_class.h"
#include "textout.h"
#include "energy.h"
#include "levels.h"
#include "mw_store.h"
#include "mw_sweepindex.h"

#define AN_MAX_CHANNELS 64
#define AN_NAME 128
#define AN_MAX_RUNS 4096

/* ---- memory ------------------------------------------------------------------------ */

typedef struct {
    mw_energy_span *s;
    size_t n, cap;
} span_list;

static void spans_push(span_list *l, int64_t start_ns, int64_t end_ns)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->s = mw_xrealloc(l->s, l->cap * sizeof *l->s);
    }
    l->s[l->n++] = (mw_energy_span){start_ns, end_ns};
}

/* ---- the analysis of one run ------------------------------------------------------- */

enum { EST_SKIPPED, EST_OK, EST_FAILED };

typedef struct {
    int state;    /* EST_SKIPPED: not attempted (JSON null); EST_FAILED: note says why */
    int constant; /* every window at the same power: one level, no density */
    mw_levels lv;
    size_t working, idle; /* split: windows labelled each way */
} an_est;

enum { BASE_NONE, BASE_IDLE_PHASES, BASE_OPTION };

typedef struct {
    int channel;
    char name[AN_NAME], host[AN_NAME];
    int has_host;
    mw_energy_window *w; /* while loading; freed once analysed */
    size_t n, cap;
    int have_counter;
    mw_energy_counter counter;
    /* results over the range */
    size_t windows;
    mw_energy_pj pj;
    int64_t covered_ns;
    mw_energy_pj meter_pj;
    int base_src;
    double base_w;
    an_est kde, gmm, split;
    double constant_w; /* the power when kde.constant */
    size_t *ranks;     /* indices into the run's ranks */
    size_t nranks;
} an_channel;

typedef struct {
    int host; /* index into the run's hosts */
    size_t off, n;
} host_slice;

typedef struct {
    char *kind, *name;
    int is_mw;
    size_t intervals;
    span_list pool; /* per host: the union of its intervals, clipped, one slice each */
    host_slice *hs;
    size_t nhs;
    mw_energy_span *all; /* union over every host, clipped */
    size_t nall;
    int64_t duration_ns;
    int64_t *dur_ns; /* per channel: length of the channel's union */
    int64_t *cov_ns; /* per channel: window time inside it */
    mw_energy_pj *pj;
} an_phase;

typedef struct {
    int rank;
    size_t host;
    int64_t first_ns, last_ns; /* span of its phases, clipped to the range */
    span_list work;            /* union of its working phases, clipped */
    size_t *chans;
    size_t nchans;
    mw_energy_pj pj, work_pj;
    int64_t cov_ns, work_cov_ns;
} an_rank;

typedef struct {
    const char *dir;
    char status[128];
    int64_t origin_ns;
    int64_t from_ns, to_ns;    /* range asked, INT64_MIN / INT64_MAX when open */
    int64_t first_ns, last_ns; /* the data's extent inside it */
    int64_t samples;
    int nch;
    an_channel ch[AN_MAX_CHANNELS];
    char **hosts; /* phases' host names, sorted */
    size_t nhosts;
    an_phase *ph;
    size_t nph;
    an_rank *rk;
    size_t nrk;
    span_list idle; /* the idle baseline (mw idle-before, idle-after), not clipped */
} an_run;

typedef struct {
    char name[AN_NAME];
    int all; /* W for every channel */
    double w;
} idle_power;

typedef struct {
    int json;
    int have_from, have_to;
    double from_s, to_s;
    idle_power idle[AN_MAX_CHANNELS + 1];
    int nidle;
} an_opts;

static void run_free(an_run *r)
{
    if (!r) return;
    for (int i = 0; i < r->nch; i++) {
        free(r->ch[i].w);
        free(r->ch[i].ranks);
    }
    for (size_t i = 0; i < r->nhosts; i++)
        free(r->hosts[i]);
    free(r->hosts);
    for (size_t i = 0; i < r->nph; i++) {
        an_phase *p = &r->ph[i];
        free(p->kind);
        free(p->name);
        free(p->pool.s);
        free(p->hs);
        free(p->all);
        free(p->dur_ns);
        free(p->cov_ns);
        free(p->pj);
    }
    free(r->ph);
    for (size_t i = 0; i < r->nrk; i++) {
        free(r->rk[i].work.s);
        free(r->rk[i].chans);
    }
    free(r->rk);
    free(r->idle.s);
    free(r);
}

/* ---- reading ----------------------------------------------------------------------- */

static int db_fail(const an_run *r, mw_store *s)
{
    fprintf(stderr, "mw analyze: %s: %s\n", r->dir, sqlite3_errmsg(mw_store_db(s)));
    return MW_EXIT_USAGE;
}

static int prepare(const an_run *r, mw_store *s, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(mw_store_db(s), sql, -1, st, NULL) != SQLITE_OK) return db_fail(r, s);
    return 0;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

static an_channel *channel_of(an_run *r, int channel, int *map)
{
    if (channel >= 0 && channel < 256 && map[channel] >= 0) return &r->ch[map[channel]];
    for (int i = 0; i < r->nch; i++)
        if (r->ch[i].channel == channel) return &r->ch[i];
    if (r->nch == AN_MAX_CHANNELS) return NULL;
    an_channel *c = &r->ch[r->nch];
    memset(c, 0, sizeof *c);
    c->channel = channel;
    snprintf(c->name, sizeof c->name, "%d", channel);
    if (channel >= 0 && channel < 256) map[channel] = r->nch;
    r->nch++;
    return c;
}

static int load_channels(an_run *r, mw_store *s, int *map)
{
    sqlite3_stmt *st;
    if (prepare(r, s, "SELECT channel, name, host FROM channels ORDER BY channel", &st))
        return MW_EXIT_USAGE;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        an_channel *c = channel_of(r, sqlite3_column_int(st, 0), map);
        if (!c) break;
        snprintf(c->name, sizeof c->name, "%s", col_text(st, 1));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
            c->has_host = 1;
            snprintf(c->host, sizeof c->host, "%s", col_text(st, 2));
        }
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) {
        fprintf(stderr, "mw analyze: %s: more than %d channels\n", r->dir, AN_MAX_CHANNELS);
        return MW_EXIT_USAGE;
    }
    return rc == SQLITE_DONE ? 0 : db_fail(r, s);
}

/* (t1, t0) order, as the trace sorts windows */
static int window_before(const mw_energy_window *a, const mw_energy_window *b)
{
    return a->t1_ns < b->t1_ns || (a->t1_ns == b->t1_ns && a->t0_ns < b->t0_ns);
}

/* Every sample, in one scan of the table in key order (only the four columns integrated:
 * the fewer columns decoded, the faster the scan); then the meter's counter at the first
 * and last window of the range, two lookups per channel through the (channel, t1_ns) index. */
static int load_samples(an_run *r, mw_store *s, int *map)
{
    sqlite3_stmt *st;
    if (prepare(r, s,
                "SELECT channel, t0_ns, t1_ns, power_mw FROM samples "
                "ORDER BY segment, seq, channel",
                &st))
        return MW_EXIT_USAGE;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        an_channel *c = channel_of(r, sqlite3_column_int(st, 0), map);
        if (!c) {
            sqlite3_finalize(st);
            fprintf(stderr, "mw analyze: %s: more than %d channels\n", r->dir, AN_MAX_CHANNELS);
            return MW_EXIT_USAGE;
        }
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 4096;
            c->w = mw_xrealloc(c->w, c->cap * sizeof *c->w);
        }
        mw_energy_window w = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                              sqlite3_column_int(st, 3)};
        c->w[c->n++] = w;
        r->samples++;
        if (w.t1_ns <= r->from_ns || w.t0_ns >= r->to_ns) continue; /* outside the range */
        mw_energy_counter *k = &c->counter;
        if (!c->have_counter || window_before(&w, &k->first)) k->first = w;
        if (!c->have_counter || window_before(&k->last, &w)) k->last = w;
        c->have_counter = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(r, s);

    if (prepare(r, s,
                "SELECT energy_mj, meter_t1_us - meter_t0_us FROM samples "
                "WHERE channel = ?1 AND t1_ns = ?2 AND t0_ns = ?3 LIMIT 1",
                &st))
        return MW_EXIT_USAGE;
    for (int i = 0; i < r->nch && rc == SQLITE_DONE; i++) {
        an_channel *c = &r->ch[i];
        if (!c->have_counter) continue;
        for (int last = 0; last < 2; last++) {
            const mw_energy_window *w = last ? &c->counter.last : &c->counter.first;
            sqlite3_bind_int(st, 1, c->channel);
            sqlite3_bind_int64(st, 2, w->t1_ns);
            sqlite3_bind_int64(st, 3, w->t0_ns);
            rc = sqlite3_step(st);
            if (rc != SQLITE_ROW) break;
            if (last) {
                c->counter.last_energy_mj = sqlite3_column_int64(st, 0);
            } else {
                c->counter.first_energy_mj = sqlite3_column_int64(st, 0);
                c->counter.first_meter_us = sqlite3_column_int64(st, 1);
            }
            sqlite3_reset(st);
            rc = SQLITE_DONE;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(r, s);
}

static int host_index(const an_run *r, const char *host)
{
    size_t lo = 0, hi = r->nhosts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->hosts[mid], host);
        if (!c) return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

#define AN_SPAN_KINDS "kind NOT IN ('mark', 'counter') AND end_ns > start_ns"
/* working phases: these kinds, but not a program's own waiting phase (phase_class.h) */
#define AN_WORK_KINDS                                                                              \
    "(kind IN ('compute', 'user', 'omp', 'gpu', 'cuda') AND NOT " MW_SQL_USER_WAITING ")"

/* Close the group's current host slice: union of its intervals (sorted by start). */
static void close_slice(an_phase *p, size_t off, int host)
{
    size_t n = mw_energy_spans_union(p->pool.s + off, p->pool.n - off);
    p->pool.n = off + n;
    p->hs = mw_xrealloc(p->hs, (p->nhs + 1) * sizeof *p->hs);
    p->hs[p->nhs++] = (host_slice){host, off, n};
}

/* The group's union over all hosts; the idle baseline; then clip everything to the range. */
static void close_group(an_run *r, an_phase *p)
{
    p->all = mw_xrealloc(NULL, (p->pool.n ? p->pool.n : 1) * sizeof *p->all);
    memcpy(p->all, p->pool.s, p->pool.n * sizeof *p->all);
    p->nall = mw_energy_spans_union(p->all, p->pool.n);
    if (p->is_mw && (!strcmp(p->name, "idle-before") || !strcmp(p->name, "idle-after")))
        for (size_t i = 0; i < p->nall; i++)
            spans_push(&r->idle, p->all[i].start_ns, p->all[i].end_ns);
    p->nall = mw_energy_spans_clip(p->all, p->nall, r->from_ns, r->to_ns);
    p->duration_ns = mw_energy_spans_length_ns(p->all, p->nall);
    size_t out = 0;
    for (size_t h = 0; h < p->nhs; h++) { /* clip each slice, compacting the pool */
        host_slice *sl = &p->hs[h];
        memmove(p->pool.s + out, p->pool.s + sl->off, sl->n * sizeof *p->pool.s);
        sl->n = mw_energy_spans_clip(p->pool.s + out, sl->n, r->from_ns, r->to_ns);
        sl->off = out;
        out += sl->n;
    }
    p->pool.n = out;
}

static int load_phases(an_run *r, mw_store *s)
{
    sqlite3_stmt *st;
    if (prepare(r, s, "SELECT DISTINCT host FROM phases WHERE " AN_SPAN_KINDS " ORDER BY host",
                &st))
        return MW_EXIT_USAGE;
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->nhosts == cap) {
            cap = cap ? 2 * cap : 16;
            r->hosts = mw_xrealloc(r->hosts, cap * sizeof *r->hosts);
        }
        r->hosts[r->nhosts++] = mw_xstrdup(col_text(st, 0));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(r, s);

    if (prepare(r, s,
                "SELECT kind, name, host, start_ns, end_ns FROM phases WHERE " AN_SPAN_KINDS
                " ORDER BY kind, name, host, start_ns",
                &st))
        return MW_EXIT_USAGE;
    size_t phcap = 0, slice_off = 0;
    an_phase *p = NULL;
    int host = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kind = col_text(st, 0), *name = col_text(st, 1), *h = col_text(st, 2);
        if (!p || strcmp(p->kind, kind) || strcmp(p->name, name)) {
            if (p) {
                close_slice(p, slice_off, host);
                close_group(r, p);
            }
            if (r->nph == phcap) {
                phcap = phcap ? 2 * phcap : 16;
                r->ph = mw_xrealloc(r->ph, phcap * sizeof *r->ph);
            }
            p = &r->ph[r->nph++];
            memset(p, 0, sizeof *p);
            p->kind = mw_xstrdup(kind);
            p->name = mw_xstrdup(name);
            p->is_mw = !strcmp(kind, "mw");
            host = host_index(r, h);
            slice_off = 0;
        } else if (strcmp(r->hosts[host], h)) {
            close_slice(p, slice_off, host);
            slice_off = p->pool.n;
            host = host_index(r, h);
        }
        if (host < 0) { /* the hosts query saw another snapshot: cannot happen in one txn */
            sqlite3_finalize(st);
            fprintf(stderr, "mw analyze: %s: phases changed while read\n", r->dir);
            return MW_EXIT_USAGE;
        }
        p->intervals++;
        spans_push(&p->pool, sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(r, s);
    if (p) {
        close_slice(p, slice_off, host);
        close_group(r, p);
    }
    r->idle.n = mw_energy_spans_union(r->idle.s, r->idle.n);
    for (size_t i = 0; i < r->nph; i++) {
        r->ph[i].dur_ns = mw_xcalloc((size_t)r->nch, sizeof *r->ph[i].dur_ns);
        r->ph[i].cov_ns = mw_xcalloc((size_t)r->nch, sizeof *r->ph[i].cov_ns);
        r->ph[i].pj = mw_xcalloc((size_t)r->nch, sizeof *r->ph[i].pj);
    }
    return 0;
}

static int load_ranks(an_run *r, mw_store *s)
{
    sqlite3_stmt *st;
    if (prepare(r, s,
                "SELECT rank, host, min(start_ns), max(end_ns) FROM phases WHERE " AN_SPAN_KINDS
                " AND kind <> 'mw' GROUP BY rank, host ORDER BY rank, host",
                &st))
        return MW_EXIT_USAGE;
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int h = host_index(r, col_text(st, 1));
        if (h < 0) continue;
        if (r->nrk == cap) {
            cap = cap ? 2 * cap : 16;
            r->rk = mw_xrealloc(r->rk, cap * sizeof *r->rk);
        }
        an_rank *k = &r->rk[r->nrk++];
        memset(k, 0, sizeof *k);
        k->rank = sqlite3_column_int(st, 0);
        k->host = (size_t)h;
        k->first_ns = sqlite3_column_int64(st, 2);
        k->last_ns = sqlite3_column_int64(st, 3);
        if (k->first_ns < r->from_ns) k->first_ns = r->from_ns;
        if (k->last_ns > r->to_ns) k->last_ns = r->to_ns;
        if (k->last_ns < k->first_ns) k->last_ns = k->first_ns;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(r, s);

    if (prepare(r, s,
                "SELECT rank, host, start_ns, end_ns FROM phases WHERE " AN_SPAN_KINDS
                " AND " AN_WORK_KINDS " ORDER BY rank, host, start_ns",
                &st))
        return MW_EXIT_USAGE;
    size_t k = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int rank = sqlite3_column_int(st, 0);
        const char *h = col_text(st, 1);
        while (k < r->nrk && (r->rk[k].rank < rank ||
                              (r->rk[k].rank == rank && strcmp(r->hosts[r->rk[k].host], h) < 0)))
            k++;
        if (k == r->nrk || r->rk[k].rank != rank || strcmp(r->hosts[r->rk[k].host], h)) continue;
        spans_push(&r->rk[k].work, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(r, s);
    for (size_t i = 0; i < r->nrk; i++) {
        span_list *w = &r->rk[i].work;
        w->n = mw_energy_spans_union(w->s, w->n);
        w->n = mw_energy_spans_clip(w->s, w->n, r->from_ns, r->to_ns);
    }
    return 0;
}

/* Who measures whom: models/energy.h's rule (mw_energy_channel_measures,
 * mw_energy_rank_has_channel). */
static void map_ranks(an_run *r)
{
    const char **chh = mw_xcalloc((size_t)r->nch + 1, sizeof *chh);
    for (int c = 0; c < r->nch; c++)
        chh[c] = r->ch[c].has_host ? r->ch[c].host : NULL;
    for (int c = 0; c < r->nch; c++) {
        an_channel *ch = &r->ch[c];
        ch->ranks = mw_xcalloc(r->nrk, sizeof *ch->ranks);
        for (size_t k = 0; k < r->nrk; k++)
            if (mw_energy_channel_measures(chh[c], r->hosts[r->rk[k].host]))
                ch->ranks[ch->nranks++] = k;
    }
    for (size_t k = 0; k < r->nrk; k++) {
        an_rank *rk = &r->rk[k];
        rk->chans = mw_xcalloc((size_t)r->nch, sizeof *rk->chans);
        for (int c = 0; c < r->nch; c++)
            if (mw_energy_rank_has_channel(chh, (size_t)r->nch, (size_t)c, r->hosts[rk->host]))
                rk->chans[rk->nchans++] = (size_t)c;
    }
    free(chh);
}

/* ---- analysing one channel ---------------------------------------------------------- */

static const double *idle_option(const an_opts *o, const char *name)
{
    const double *all = NULL;
    for (int i = 0; i < o->nidle; i++) {
        if (o->idle[i].all)
            all = &o->idle[i].w;
        else if (!strcmp(o->idle[i].name, name))
            return &o->idle[i].w;
    }
    return all;
}

static void est_fail(an_est *e, const char *note)
{
    memset(e, 0, sizeof *e);
    e->state = EST_FAILED;
    snprintf(e->lv.note, sizeof e->lv.note, "%s", note);
}

static void levels(an_run *r, an_channel *c, const mw_energy_trace *t, size_t i0, size_t i1)
{
    size_t n = i1 - i0;
    if (n == 0) {
        est_fail(&c->kde, "no windows in the range");
        est_fail(&c->gmm, "no windows in the range");
        est_fail(&c->split, "no windows in the range");
        return;
    }
    double *p = mw_xcalloc(n, sizeof *p);
    int constant = 1;
    for (size_t i = 0; i < n; i++) {
        p[i] = t->w[i0 + i].power_mw / 1000.0;
        if (t->w[i0 + i].power_mw != t->w[i0].power_mw) constant = 0;
    }
    /* constant input is one level (levels.h); noted on stderr once the input is usable */
    c->kde.constant = constant;
    c->constant_w = p[0];
    c->kde.state = mw_levels_kde(p, n, &c->kde.lv) ? EST_FAILED : EST_OK;
    c->gmm.state = mw_levels_gmm(p, n, &c->gmm.lv) ? EST_FAILED : EST_OK;
    /* the phase split: the union of the working phases of the channel's ranks */
    span_list work = {0};
    for (size_t k = 0; k < c->nranks; k++) {
        const span_list *w = &r->rk[c->ranks[k]].work;
        for (size_t i = 0; i < w->n; i++)
            spans_push(&work, w->s[i].start_ns, w->s[i].end_ns);
    }
    work.n = mw_energy_spans_union(work.s, work.n);
    if (work.n == 0) {
        c->split.state = EST_SKIPPED;
    } else {
        unsigned char *label = mw_xcalloc(n, 1);
        size_t nw = mw_energy_label_windows(t, i0, i1, work.s, work.n, label);
        char note[160];
        if (nw == 0 || nw == n) {
            snprintf(note, sizeof note, "all %zu windows labelled %s", n, nw ? "working" : "idle");
            est_fail(&c->split, note);
        } else {
            c->split.state = mw_levels_split(p, label, n, &c->split.lv) ? EST_FAILED : EST_OK;
        }
        c->split.working = nw;
        c->split.idle = n - nw;
        free(label);
    }
    free(work.s);
    free(p);
}

static int analyze_channel(an_run *r, an_channel *c, const an_opts *o)
{
    char err[512];
    mw_energy_trace t;
    if (mw_energy_trace_init(&t, c->w, c->n, err, sizeof err)) {
        fprintf(stderr, "mw analyze: %s: channel %s: %s\n", r->dir, c->name, err);
        return MW_EXIT_USAGE;
    }
    size_t i0, i1;
    mw_energy_window_range(&t, r->from_ns, r->to_ns, &i0, &i1);
    c->windows = i1 - i0;
    if (c->windows) {
        int64_t a = t.w[i0].t0_ns > r->from_ns ? t.w[i0].t0_ns : r->from_ns;
        int64_t b = t.w[i1 - 1].t1_ns < r->to_ns ? t.w[i1 - 1].t1_ns : r->to_ns;
        for (size_t i = i0; i < i1; i++) /* overlapping windows: the last may not end last */
            if (t.w[i].t1_ns > b && t.w[i].t1_ns <= r->to_ns) b = t.w[i].t1_ns;
        if (a < r->first_ns) r->first_ns = a;
        if (b > r->last_ns) r->last_ns = b;
    }
    c->pj = mw_energy_span_pj(&t, r->from_ns, r->to_ns);
    c->covered_ns = mw_energy_span_covered_ns(&t, r->from_ns, r->to_ns);
    if (c->have_counter) c->meter_pj = mw_energy_meter_pj(&c->counter, r->from_ns, r->to_ns);
    const double *w = idle_option(o, c->name);
    if (w) {
        c->base_src = BASE_OPTION;
        c->base_w = *w;
    } else if (r->idle.n) {
        mw_energy_pj pj;
        int64_t cov;
        mw_energy_spans_sum(&t, r->idle.s, r->idle.n, &pj, &cov);
        if (cov > 0) {
            c->base_src = BASE_IDLE_PHASES;
            c->base_w = (double)pj / (double)cov / 1e3;
        }
    }
    levels(r, c, &t, i0, i1);
    int ci = (int)(c - r->ch);
    for (size_t g = 0; g < r->nph; g++) {
        an_phase *p = &r->ph[g];
        const mw_energy_span *sp = NULL;
        size_t n = 0;
        if (p->is_mw || !c->has_host) {
            sp = p->all;
            n = p->nall;
        } else {
            int h = host_index(r, c->host);
            for (size_t k = 0; h >= 0 && k < p->nhs; k++)
                if (p->hs[k].host == h) {
                    sp = p->pool.s + p->hs[k].off;
                    n = p->hs[k].n;
                }
        }
        p->dur_ns[ci] = mw_energy_spans_length_ns(sp, n);
        mw_energy_spans_sum(&t, sp, n, &p->pj[ci], &p->cov_ns[ci]);
    }
    for (size_t k = 0; k < r->nrk; k++) {
        an_rank *rk = &r->rk[k];
        for (size_t j = 0; j < rk->nchans; j++) {
            if (rk->chans[j] != (size_t)ci) continue;
            rk->pj += mw_energy_span_pj(&t, rk->first_ns, rk->last_ns);
            rk->cov_ns += mw_energy_span_covered_ns(&t, rk->first_ns, rk->last_ns);
            mw_energy_pj pj;
            int64_t cov;
            mw_energy_spans_sum(&t, rk->work.s, rk->work.n, &pj, &cov);
            rk->work_pj += pj;
            rk->work_cov_ns += cov;
        }
    }
    mw_energy_trace_free(&t);
    free(c->w);
    c->w = NULL;
    c->n = c->cap = 0;
    return 0;
}

/* ---- one run ----------------------------------------------------------------------- */

/* s seconds since origin, as ns (the caller checked |s| < 1e9) */
static int64_t at_s(int64_t origin_ns, double s)
{
    __int128 t = (__int128)origin_ns + llround(s * 1e9); /* origin: any int64 in a damaged run */
    return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
}

static int analyze_run(an_run *r, const an_opts *o)
{
    if (!mw_store_exists(r->dir)) {
        fprintf(stderr, "mw analyze: %s: not a run (no %s there)\n", r->dir, MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    char err[1024];
    mw_store *s = mw_store_open(r->dir, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mw analyze: %s\n", err);
        return MW_EXIT_USAGE;
    }
    sqlite3_exec(mw_store_db(s), "BEGIN", NULL, NULL, NULL); /* one snapshot for all */
    int map[256];
    for (int i = 0; i < 256; i++)
        map[i] = -1;
    int rc = 0;
    if (mw_store_meta_get(s, "status", r->status, sizeof r->status))
        snprintf(r->status, sizeof r->status, "unknown");
    if (mw_store_start_ns(s, &r->origin_ns)) {
        fprintf(stderr, "mw analyze: %s: no samples\n", r->dir);
        rc = MW_EXIT_USAGE;
    }
    r->from_ns = o->have_from ? at_s(r->origin_ns, o->from_s) : INT64_MIN;
    r->to_ns = o->have_to ? at_s(r->origin_ns, o->to_s) : INT64_MAX;
    r->first_ns = INT64_MAX;
    r->last_ns = INT64_MIN;
    if (!rc) rc = load_channels(r, s, map);
    if (!rc) rc = load_samples(r, s, map);
    if (!rc && r->samples == 0) {
        fprintf(stderr, "mw analyze: %s: no samples\n", r->dir);
        rc = MW_EXIT_USAGE;
    }
    if (!rc) rc = load_phases(r, s);
    if (!rc) rc = load_ranks(r, s);
    sqlite3_exec(mw_store_db(s), "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    if (rc) return rc;
    map_ranks(r);
    for (int c = 0; c < r->nch && !rc; c++)
        rc = analyze_channel(r, &r->ch[c], o);
    if (!rc && r->first_ns > r->last_ns) {
        char a[64] = "the start", b[64] = "the end";
        if (o->have_from) snprintf(a, sizeof a, "%g s", o->from_s);
        if (o->have_to) snprintf(b, sizeof b, "%g s", o->to_s);
        fprintf(stderr, "mw analyze: %s: no samples between %s and %s\n", r->dir, a, b);
        rc = MW_EXIT_USAGE;
    }
    return rc;
}

/* ---- formatting -------------------------------------------------------------------- */

/* J with 6 decimals (JSON) */
static const char *joules6(char *buf, size_t len, mw_energy_pj pj)
{
    return mw_out_fixed(buf, len, pj, 1000000, 6, "");
}

/* J with 3 decimals below 10 kJ, else kJ (text) */
static const char *energy_text(char *buf, size_t len, mw_energy_pj pj)
{
    const mw_energy_pj j = 1000000000000;
    if (pj < 10000 * j && pj > -10000 * j) return mw_out_fixed(buf, len, pj, j / 1000, 3, "J");
    return mw_out_fixed(buf, len, pj, j, 3, "kJ");
}

static const char *seconds6(char *buf, size_t len, __int128 ns)
{
    return mw_out_fixed(buf, len, ns, 1000, 6, "");
}

static const char *since_s(char *buf, size_t len, int64_t t_ns, int64_t origin_ns, int text)
{
    return mw_out_fixed(buf, len, (__int128)t_ns - origin_ns, text ? 1000000 : 1000, text ? 3 : 6,
                        text ? "s" : "");
}

/* a double, or null / "-" when it is not a number */
static const char *dbl(char *buf, size_t len, double v, int decimals, const char *unit, int json)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", json ? "null" : "-");
        return buf;
    }
    snprintf(buf, len, "%.*f%s%s", decimals, v, *unit ? " " : "", unit);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strcspn(buf + 1, " ")) /* "-0.000" */
        memmove(buf, buf + 1, strlen(buf));
    return buf;
}

/* ---- the figures, as numbers (NAN when missing) ------------------------------------ */

static double meter_pct(const an_channel *c)
{
    if (!c->have_counter || c->meter_pj == 0) return NAN;
    return (double)(c->pj - c->meter_pj) / (double)c->meter_pj * 100;
}

static double dynamic_j(const an_channel *c, mw_energy_pj pj, int64_t cov_ns)
{
    return c->base_src == BASE_NONE ? NAN : mw_energy_dynamic_j(pj, c->base_w, cov_ns);
}

static double est_idle(const an_est *e)
{
    return e->state == EST_OK ? e->lv.idle_w : NAN;
}
static double est_work(const an_est *e)
{
    return e->state == EST_OK ? e->lv.work_w : NAN;
}

static const char *base_name(int src)
{
    return src == BASE_OPTION ? "--idle-power" : src == BASE_IDLE_PHASES ? "idle phases" : NULL;
}

/* ---- JSON -------------------------------------------------------------------------- */

static void json_est(FILE *out, const char *key, const an_est *e, int split)
{
    char b[64];
    fprintf(out, ",\n     \"%s\": ", key);
    if (e->state == EST_SKIPPED) {
        fputs("null", out);
        return;
    }
    int ok = e->state == EST_OK;
    fprintf(out, "{\"pow_idle_w\": %s", dbl(b, sizeof b, est_idle(e), 3, "", 1));
    fprintf(out, ", \"pow_work_w\": %s", dbl(b, sizeof b, est_work(e), 3, "", 1));
    fprintf(out, ", \"bimodal\": %s", !ok ? "null" : e->lv.bimodal ? "true" : "false");
    if (!strcmp(key, "kde")) {
        int have = ok && !e->constant;
        fprintf(out, ", \"bandwidth_w\": %s",
                dbl(b, sizeof b, have ? e->lv.bandwidth_w : NAN, 6, "", 1));
        if (have)
            fprintf(out, ", \"bins\": %d", e->lv.bins);
        else
            fputs(", \"bins\": null", out);
    } else {
        fprintf(out, ", \"idle_sd_w\": %s", dbl(b, sizeof b, ok ? e->lv.idle_sd_w : NAN, 3, "", 1));
        fprintf(out, ", \"work_sd_w\": %s", dbl(b, sizeof b, ok ? e->lv.work_sd_w : NAN, 3, "", 1));
        fprintf(out, ", \"idle_weight\": %s",
                dbl(b, sizeof b, ok ? e->lv.idle_weight : NAN, 6, "", 1));
    }
    if (split)
        fprintf(out, ", \"working_windows\": %zu, \"idle_windows\": %zu", e->working, e->idle);
    fputs(", \"note\": ", out);
    if (e->lv.note[0])
        mw_out_json_string(out, e->lv.note);
    else
        fputs("null", out);
    fputc('}', out);
}

static void json_channel(FILE *out, const an_run *r, const an_channel *c)
{
    char b[64];
    fputs("    {\"channel\": ", out);
    fprintf(out, "%d, \"name\": ", c->channel);
    mw_out_json_string(out, c->name);
    fputs(", \"host\": ", out);
    if (c->has_host)
        mw_out_json_string(out, c->host);
    else
        fputs("null", out);
    fputs(", \"ranks\": [", out);
    for (size_t k = 0; k < c->nranks; k++)
        fprintf(out, "%s%d", k ? ", " : "", r->rk[c->ranks[k]].rank);
    fputc(']', out);
    fprintf(out, ",\n     \"windows\": %zu, \"covered_s\": %s", c->windows,
            seconds6(b, sizeof b, c->covered_ns));
    fprintf(out, ", \"energy_j\": %s", joules6(b, sizeof b, c->pj));
    if (c->have_counter) {
        fprintf(out, ", \"meter_energy_j\": %s", joules6(b, sizeof b, c->meter_pj));
        fprintf(out, ", \"meter_difference_j\": %s", joules6(b, sizeof b, c->pj - c->meter_pj));
    } else {
        fputs(", \"meter_energy_j\": null, \"meter_difference_j\": null", out);
    }
    fprintf(out, ", \"meter_difference_pct\": %s", dbl(b, sizeof b, meter_pct(c), 4, "", 1));
    if (c->covered_ns > 0)
        fprintf(out, ",\n     \"mean_power_w\": %s",
                mw_out_fixed(b, sizeof b, mw_energy_mean_power_mw(c->pj, c->covered_ns), 1, 3, ""));
    else
        fputs(",\n     \"mean_power_w\": null", out);
    fprintf(out, ", \"idle_power_w\": %s",
            dbl(b, sizeof b, c->base_src ? c->base_w : NAN, 6, "", 1));
    fputs(", \"idle_power_source\": ", out);
    if (c->base_src)
        mw_out_json_string(out, base_name(c->base_src));
    else
        fputs("null", out);
    fprintf(out, ", \"dynamic_energy_j\": %s",
            dbl(b, sizeof b, dynamic_j(c, c->pj, c->covered_ns), 6, "", 1));
    fprintf(out, ",\n     \"pow_idle_w\": %s", dbl(b, sizeof b, est_idle(&c->kde), 3, "", 1));
    fprintf(out, ", \"pow_work_w\": %s", dbl(b, sizeof b, est_work(&c->kde), 3, "", 1));
    fprintf(out, ", \"bimodal\": %s",
            c->kde.state != EST_OK ? "null"
            : c->kde.lv.bimodal    ? "true"
                                   : "false");
    json_est(out, "kde", &c->kde, 0);
    json_est(out, "gmm", &c->gmm, 0);
    json_est(out, "split", &c->split, 1);
    fputs("}", out);
}

static void json_run(FILE *out, const an_run *r)
{
    char b[64], b2[64];
    fputs("  {\"run\": ", out);
    mw_out_json_string(out, r->dir);
    fputs(", \"status\": ", out);
    mw_out_json_string(out, r->status);
    fprintf(out, ", \"start_ns\": %" PRId64 ",\n   \"from_s\": %s, \"to_s\": %s", r->origin_ns,
            since_s(b, sizeof b, r->first_ns, r->origin_ns, 0),
            since_s(b2, sizeof b2, r->last_ns, r->origin_ns, 0));
    fprintf(out, ", \"duration_s\": %s", seconds6(b, sizeof b, (__int128)r->last_ns - r->first_ns));
    fputs(",\n   \"channels\": [\n", out);
    for (int i = 0; i < r->nch; i++) {
        json_channel(out, r, &r->ch[i]);
        fputs(i + 1 < r->nch ? ",\n" : "\n", out);
    }
    fputs("   ],\n   \"phases\": [", out);
    for (size_t g = 0; g < r->nph; g++) {
        const an_phase *p = &r->ph[g];
        fputs(g ? ",\n    {\"kind\": " : "\n    {\"kind\": ", out);
        mw_out_json_string(out, p->kind);
        fputs(", \"name\": ", out);
        mw_out_json_string(out, p->name);
        fprintf(out, ", \"intervals\": %zu, \"duration_s\": %s, \"channels\": [", p->intervals,
                seconds6(b, sizeof b, p->duration_ns));
        int first = 1;
        for (int c = 0; c < r->nch; c++) {
            if (!p->dur_ns[c]) continue;
            const an_channel *ch = &r->ch[c];
            fputs(first ? "\n     {\"name\": " : ",\n     {\"name\": ", out);
            first = 0;
            mw_out_json_string(out, ch->name);
            fprintf(out, ", \"duration_s\": %s", seconds6(b, sizeof b, p->dur_ns[c]));
            fprintf(out, ", \"covered_s\": %s", seconds6(b, sizeof b, p->cov_ns[c]));
            fprintf(out, ", \"energy_j\": %s", joules6(b, sizeof b, p->pj[c]));
            if (p->cov_ns[c] > 0)
                fprintf(out, ", \"mean_power_w\": %s",
                        mw_out_fixed(b, sizeof b, mw_energy_mean_power_mw(p->pj[c], p->cov_ns[c]),
                                     1, 3, ""));
            else
                fputs(", \"mean_power_w\": null", out);
            fprintf(out, ", \"dynamic_energy_j\": %s}",
                    dbl(b, sizeof b, dynamic_j(ch, p->pj[c], p->cov_ns[c]), 6, "", 1));
        }
        fputs(first ? "]}" : "\n    ]}", out);
    }
    fputs(r->nph ? "\n   ],\n   \"ranks\": [" : "],\n   \"ranks\": [", out);
    for (size_t k = 0; k < r->nrk; k++) {
        const an_rank *rk = &r->rk[k];
        fprintf(out, "%s    {\"rank\": %d, \"host\": ", k ? ",\n" : "\n", rk->rank);
        mw_out_json_string(out, r->hosts[rk->host]);
        fputs(", \"channels\": [", out);
        for (size_t j = 0; j < rk->nchans; j++) {
            if (j) fputs(", ", out);
            mw_out_json_string(out, r->ch[rk->chans[j]].name);
        }
        fprintf(out, "], \"start_s\": %s", since_s(b, sizeof b, rk->first_ns, r->origin_ns, 0));
        fprintf(out, ", \"end_s\": %s", since_s(b, sizeof b, rk->last_ns, r->origin_ns, 0));
        fprintf(out, ", \"duration_s\": %s",
                seconds6(b, sizeof b, (__int128)rk->last_ns - rk->first_ns));
        fprintf(out, ", \"energy_j\": %s", joules6(b, sizeof b, rk->pj));
        fprintf(out, ", \"work_s\": %s",
                seconds6(b, sizeof b, mw_energy_spans_length_ns(rk->work.s, rk->work.n)));
        fprintf(out, ", \"work_energy_j\": %s}", joules6(b, sizeof b, rk->work_pj));
    }
    fputs(r->nrk ? "\n   ]}" : "]}", out);
}

/* ---- across runs ------------------------------------------------------------------- */

typedef struct {
    const char *key, *group; /* JSON key, and the object it is in (NULL: the channel's) */
    const char *label;       /* text column */
    const char *unit;
    int decimals;
} metric;

enum {
    M_ENERGY,
    M_METER,
    M_MEAN,
    M_DYN,
    M_KDE_IDLE,
    M_KDE_WORK,
    M_GMM_IDLE,
    M_GMM_WORK,
    M_SPLIT_IDLE,
    M_SPLIT_WORK,
    M_COUNT
};

static const metric metrics[M_COUNT] = {
    {"energy_j", NULL, "energy", "J", 3},
    {"meter_energy_j", NULL, "by meter", "J", 3},
    {"mean_power_w", NULL, "mean power", "W", 3},
    {"dynamic_energy_j", NULL, "dynamic energy", "J", 3},
    {"pow_idle_w", NULL, "Pow_idle kde", "W", 3},
    {"pow_work_w", NULL, "Pow_work kde", "W", 3},
    {"pow_idle_w", "gmm", "Pow_idle gmm", "W", 3},
    {"pow_work_w", "gmm", "Pow_work gmm", "W", 3},
    {"pow_idle_w", "split", "Pow_idle split", "W", 3},
    {"pow_work_w", "split", "Pow_work split", "W", 3},
};

static double metric_value(const an_channel *c, int m)
{
    switch (m) {
    case M_ENERGY:
        return mw_energy_j(c->pj);
    case M_METER:
        return c->have_counter ? mw_energy_j(c->meter_pj) : NAN;
    case M_MEAN:
        return c->covered_ns > 0 ? mw_energy_mean_power_mw(c->pj, c->covered_ns) / 1e3 : NAN;
    case M_DYN:
        return dynamic_j(c, c->pj, c->covered_ns);
    case M_KDE_IDLE:
        return est_idle(&c->kde);
    case M_KDE_WORK:
        return est_work(&c->kde);
    case M_GMM_IDLE:
        return est_idle(&c->gmm);
    case M_GMM_WORK:
        return est_work(&c->gmm);
    case M_SPLIT_IDLE:
        return est_idle(&c->split);
    default:
        return est_work(&c->split);
    }
}

typedef struct {
    size_t n;
    double mean, sd; /* NAN when n is too small */
} summary;

/* mean and sample sd (GSL) of metric m over the runs' channels named name */
static summary summarize(an_run *const *runs, int nruns, const char *name, int m)
{
    size_t cap = 0; /* a damaged run may have two channels of one name: room for all */
    for (int i = 0; i < nruns; i++)
        cap += (size_t)runs[i]->nch;
    double *v = mw_xcalloc(cap, sizeof *v);
    size_t n = 0;
    for (int i = 0; i < nruns; i++)
        for (int c = 0; c < runs[i]->nch; c++)
            if (!strcmp(runs[i]->ch[c].name, name)) {
                double x = metric_value(&runs[i]->ch[c], m);
                if (isfinite(x)) v[n++] = x;
            }
    summary s = {n, NAN, NAN};
    if (n) s.mean = gsl_stats_mean(v, 1, n);
    if (n > 1) s.sd = gsl_stats_sd(v, 1, n);
    free(v);
    return s;
}

/* channel names across runs, in order of first appearance */
static size_t channel_names(an_run *const *runs, int nruns, const char **names, size_t max)
{
    size_t n = 0;
    for (int i = 0; i < nruns; i++)
        for (int c = 0; c < runs[i]->nch; c++) {
            size_t k = 0;
            while (k < n && strcmp(names[k], runs[i]->ch[c].name))
                k++;
            if (k == n && n < max) names[n++] = runs[i]->ch[c].name;
        }
    return n;
}

static size_t runs_with(an_run *const *runs, int nruns, const char *name)
{
    size_t n = 0;
    for (int i = 0; i < nruns; i++)
        for (int c = 0; c < runs[i]->nch; c++)
            if (!strcmp(runs[i]->ch[c].name, name)) n++;
    return n;
}

static void json_summary(FILE *out, const char *key, summary s, int decimals)
{
    char m[64], d[64];
    fprintf(out, "\"%s\": {\"n\": %zu, \"mean\": %s, \"sd\": %s}", key, s.n,
            dbl(m, sizeof m, s.mean, decimals + 3, "", 1),
            dbl(d, sizeof d, s.sd, decimals + 3, "", 1));
}

static void json_aggregate(FILE *out, an_run *const *runs, int nruns)
{
    const char *names[AN_MAX_RUNS];
    size_t nn = channel_names(runs, nruns, names, AN_MAX_RUNS);
    fprintf(out, "  \"aggregate\": {\"runs\": %d, \"channels\": [", nruns);
    for (size_t k = 0; k < nn; k++) {
        fputs(k ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        mw_out_json_string(out, names[k]);
        fprintf(out, ", \"runs\": %zu", runs_with(runs, nruns, names[k]));
        const char *group = NULL;
        for (int m = 0; m < M_COUNT; m++) {
            const metric *mt = &metrics[m];
            if (!group != !mt->group || (group && strcmp(group, mt->group))) {
                if (group) fputc('}', out);
                fprintf(out, ",\n     \"%s\": {", mt->group);
                group = mt->group;
            } else {
                fputs(",\n     ", out);
            }
            json_summary(out, mt->key, summarize(runs, nruns, names[k], m), mt->decimals);
        }
        if (group) fputc('}', out);
        fputc('}', out);
    }
    fputs(nn ? "\n  ]}\n" : "]}\n", out);
}

static void json_doc(FILE *out, an_run *const *runs, int nruns)
{
    fputs("{\n  \"version\": 1,\n  \"runs\": [\n", out);
    for (int i = 0; i < nruns; i++) {
        json_run(out, runs[i]);
        fputs(i + 1 < nruns ? ",\n" : "\n", out);
    }
    fputs("  ],\n", out);
    json_aggregate(out, runs, nruns);
    fputs("}\n", out);
}

/* ---- text -------------------------------------------------------------------------- */

typedef struct {
    int ncols;
    const char *align; /* per column 'l' or 'r' */
    int nrows, cap;
    char **cells;
} table;

static void table_add(table *t, const char *const *row)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = mw_xrealloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof *t->cells);
    }
    for (int i = 0; i < t->ncols; i++)
        t->cells[t->nrows * t->ncols + i] = mw_xstrdup(row[i]);
    t->nrows++;
}

/* Columns two spaces apart, each as wide as its widest cell; then freed. */
static void table_print(table *t, FILE *out)
{
    int w[32] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            int n = (int)strlen(t->cells[r * t->ncols + c]);
            if (n > w[c]) w[c] = n;
        }
    for (int r = 0; r < t->nrows; r++) {
        fputs("  ", out);
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            if (c) fputs("  ", out);
            if (t->align[c] == 'r')
                fprintf(out, "%*s", w[c], s);
            else
                fprintf(out, "%-*s", c == t->ncols - 1 ? 0 : w[c], s);
        }
        fputc('\n', out);
    }
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
}

static const char *est_text(char *buf, size_t len, const an_est *e, int idle)
{
    return dbl(buf, len, idle ? est_idle(e) : est_work(e), 3, "W", 0);
}

static void text_run(FILE *out, const an_run *r)
{
    char a[64], b[64], d[64];
    fprintf(out, "run %s (%s): %s to %s since the start, %s\n", r->dir, r->status,
            since_s(a, sizeof a, r->first_ns, r->origin_ns, 1),
            since_s(b, sizeof b, r->last_ns, r->origin_ns, 1),
            mw_out_fixed(d, sizeof d, (__int128)r->last_ns - r->first_ns, 1000000, 3, "s"));

    fputs("\nenergy\n", out);
    table t = {.ncols = 10, .align = "llrrrrrrlr"};
    const char *head[] = {"channel",    "host",       "windows",    "energy",    "by meter",
                          "difference", "mean power", "idle power", "idle from", "dynamic energy"};
    table_add(&t, head);
    for (int i = 0; i < r->nch; i++) {
        const an_channel *c = &r->ch[i];
        char n[32], e[64], m[64] = "-", df[96] = "-", p[64] = "-", ip[64], dy[64];
        snprintf(n, sizeof n, "%zu", c->windows);
        energy_text(e, sizeof e, c->pj);
        if (c->have_counter) {
            char pct[48];
            energy_text(m, sizeof m, c->meter_pj);
            energy_text(df, sizeof df, c->pj - c->meter_pj);
            if (isfinite(meter_pct(c))) {
                snprintf(pct, sizeof pct, " (%.3f %%)", meter_pct(c));
                strncat(df, pct, sizeof df - strlen(df) - 1);
            }
        }
        if (c->covered_ns > 0)
            mw_out_fixed(p, sizeof p, mw_energy_mean_power_mw(c->pj, c->covered_ns), 1, 3, "W");
        dbl(ip, sizeof ip, c->base_src ? c->base_w : NAN, 3, "W", 0);
        dbl(dy, sizeof dy, dynamic_j(c, c->pj, c->covered_ns), 3, "J", 0);
        const char *row[] = {c->name,
                             c->has_host ? c->host : "-",
                             n,
                             e,
                             m,
                             df,
                             p,
                             ip,
                             c->base_src ? base_name(c->base_src) : "-",
                             dy};
        table_add(&t, row);
    }
    table_print(&t, out);

    fputs("\npower levels (kde: the paper's kernel density; gmm: 2-component Gaussian "
          "mixture; split: phase-labelled windows)\n",
          out);
    table lv = {.ncols = 8, .align = "lrrlrrrr"};
    const char *lhead[] = {"channel",  "kde idle", "kde work",   "kde",
                           "gmm idle", "gmm work", "split idle", "split work"};
    table_add(&lv, lhead);
    for (int i = 0; i < r->nch; i++) {
        const an_channel *c = &r->ch[i];
        char v[6][64];
        const char *modal = c->kde.state != EST_OK ? "-"
                            : c->kde.lv.bimodal    ? "bimodal"
                                                   : "unimodal";
        const char *row[] = {c->name,
                             est_text(v[0], 64, &c->kde, 1),
                             est_text(v[1], 64, &c->kde, 0),
                             modal,
                             est_text(v[2], 64, &c->gmm, 1),
                             est_text(v[3], 64, &c->gmm, 0),
                             est_text(v[4], 64, &c->split, 1),
                             est_text(v[5], 64, &c->split, 0)};
        table_add(&lv, row);
    }
    table_print(&lv, out);
    for (int i = 0; i < r->nch; i++) {
        const an_channel *c = &r->ch[i];
        const an_est *e[] = {&c->kde, &c->gmm, &c->split};
        const char *nm[] = {"kde", "gmm", "split"};
        for (int k = 0; k < 3; k++)
            if (e[k]->lv.note[0])
                fprintf(out, "  note: %s %s: %s\n", c->name, nm[k], e[k]->lv.note);
        if (c->split.state == EST_SKIPPED)
            fprintf(out,
                    "  note: %s split: no working phases (compute, user, omp, gpu, cuda; not "
                    "user idle.../wait...) on its ranks\n",
                    c->name);
    }

    if (r->nph) {
        fputs("\nphases (union of each phase's intervals over the ranks a channel measures)\n",
              out);
        table pt = {.ncols = 8, .align = "llrlrrrr"};
        const char *phead[] = {"kind",   "phase",      "duration",       "channel",
                               "energy", "mean power", "dynamic energy", "time on channel"};
        table_add(&pt, phead);
        for (size_t g = 0; g < r->nph; g++) {
            const an_phase *p = &r->ph[g];
            char du[64];
            mw_out_fixed(du, sizeof du, p->duration_ns, 1000000, 3, "s");
            int any = 0;
            for (int c = 0; c < r->nch; c++) {
                if (!p->dur_ns[c]) continue;
                char e[64], mp[64] = "-", dy[64], tc[64];
                energy_text(e, sizeof e, p->pj[c]);
                if (p->cov_ns[c] > 0)
                    mw_out_fixed(mp, sizeof mp, mw_energy_mean_power_mw(p->pj[c], p->cov_ns[c]), 1,
                                 3, "W");
                dbl(dy, sizeof dy, dynamic_j(&r->ch[c], p->pj[c], p->cov_ns[c]), 3, "J", 0);
                mw_out_fixed(tc, sizeof tc, p->dur_ns[c], 1000000, 3, "s");
                const char *row[] = {any ? "" : p->kind,
                                     any ? "" : p->name,
                                     any ? "" : du,
                                     r->ch[c].name,
                                     e,
                                     mp,
                                     dy,
                                     tc};
                table_add(&pt, row);
                any = 1;
            }
            if (!any) {
                const char *row[] = {p->kind, p->name, du, "-", "-", "-", "-", "-"};
                table_add(&pt, row);
            }
        }
        table_print(&pt, out);
    }

    if (r->nrk) {
        fputs("\nranks (energy of the channels measuring the rank's host)\n", out);
        table kt = {.ncols = 9, .align = "rllrrrrrr"};
        const char *khead[] = {"rank",     "host",   "channels",  "start",      "end",
                               "duration", "energy", "work time", "work energy"};
        table_add(&kt, khead);
        for (size_t k = 0; k < r->nrk; k++) {
            const an_rank *rk = &r->rk[k];
            char rn[32], ch[512] = "", st[64], en[64], du[64], e[64], wt[64], we[64];
            snprintf(rn, sizeof rn, "%d", rk->rank);
            for (size_t j = 0; j < rk->nchans; j++) {
                if (j) strncat(ch, ",", sizeof ch - strlen(ch) - 1);
                strncat(ch, r->ch[rk->chans[j]].name, sizeof ch - strlen(ch) - 1);
            }
            const char *row[] = {
                rn,
                r->hosts[rk->host],
                rk->nchans ? ch : "-",
                since_s(st, sizeof st, rk->first_ns, r->origin_ns, 1),
                since_s(en, sizeof en, rk->last_ns, r->origin_ns, 1),
                mw_out_fixed(du, sizeof du, (__int128)rk->last_ns - rk->first_ns, 1000000, 3, "s"),
                energy_text(e, sizeof e, rk->pj),
                mw_out_fixed(wt, sizeof wt, mw_energy_spans_length_ns(rk->work.s, rk->work.n),
                             1000000, 3, "s"),
                energy_text(we, sizeof we, rk->work_pj)};
            table_add(&kt, row);
        }
        table_print(&kt, out);
    }
}

static void text_aggregate(FILE *out, an_run *const *runs, int nruns)
{
    const char *names[AN_MAX_RUNS];
    size_t nn = channel_names(runs, nruns, names, AN_MAX_RUNS);
    fprintf(out, "\nacross %d runs: mean ± sd (sample sd, GSL)\n", nruns);
    const int part[2][2] = {{M_ENERGY, M_KDE_IDLE}, {M_KDE_IDLE, M_COUNT}}; /* energy, levels */
    for (int g = 0; g < 2; g++) {
        int m0 = part[g][0], nm = part[g][1] - m0;
        table t = {.ncols = 2 + nm, .align = "lrrrrrrr"};
        const char *head[2 + M_COUNT] = {"channel", "runs"};
        for (int m = 0; m < nm; m++)
            head[2 + m] = metrics[m0 + m].label;
        table_add(&t, head);
        for (size_t k = 0; k < nn; k++) {
            char cells[M_COUNT][128], rn[32];
            const char *row[2 + M_COUNT] = {names[k], rn};
            snprintf(rn, sizeof rn, "%zu", runs_with(runs, nruns, names[k]));
            for (int m = 0; m < nm; m++) {
                const metric *mt = &metrics[m0 + m];
                summary s = summarize(runs, nruns, names[k], m0 + m);
                char mv[48], sv[48];
                if (!s.n)
                    snprintf(cells[m], sizeof cells[m], "-");
                else
                    snprintf(cells[m], sizeof cells[m], "%s ± %s %s",
                             dbl(mv, sizeof mv, s.mean, mt->decimals, "", 0),
                             dbl(sv, sizeof sv, s.sd, mt->decimals, "", 0), mt->unit);
                row[2 + m] = cells[m];
            }
            table_add(&t, row);
        }
        if (g) fputc('\n', out);
        table_print(&t, out);
    }
}

/* ---- arguments --------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: mw analyze RUNDIR... [--json] [--from S] [--to S] [--idle-power W]\n\n"
                 "Energy and power levels of runs (docs/analysis.md):\n"
                 "  per channel   energy (windows' power x time, partial windows pro rata), the\n"
                 "                meter's counter over the same span and the difference, mean\n"
                 "                power, dynamic energy = energy - idle power x time;\n"
                 "                Pow_idle/Pow_work three ways: kde (the paper's method: kernel\n"
                 "                density, its two highest maxima), gmm (2-component Gaussian\n"
                 "                mixture, EM), split (mean power of windows labelled working /\n"
                 "                idle from the compute, user, omp, gpu, cuda phases of its\n"
                 "                ranks, not user phases named idle... or wait...);\n"
                 "  per phase     (kind, name): duration of the union of its intervals, and per\n"
                 "                channel the energy, mean power and dynamic energy during it;\n"
                 "  per rank      the channels measuring its host, its span and work time, and\n"
                 "                their energy;\n"
                 "and, for several runs, mean ± sd per channel name.\n\n"
                 "  --json          one JSON document instead of text (keys: docs/analysis.md)\n"
                 "  --from S        analyse from S seconds after the run's start (default: all)\n"
                 "  --to S          ... up to S seconds after it\n"
                 "  --idle-power W  idle power for the dynamic energy: W watts for every channel,\n"
                 "                  or NAME=W[,NAME=W...] per channel (repeatable); default: the\n"
                 "                  mean power over the run's idle baseline (mw record --idle)\n"
                 "  -h, --help      this text\n\n"
                 "A RUNDIR may be a SWEEPDIR (mw sweep, docs/sweep.md): its finished runs.\n"
                 "Unusable input (not a run, no samples, an empty range) exits 2.\n");
}

/* a finite number filling the whole string */

static int parse_idle(an_opts *o, const char *arg)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
        return mw_cli_usage_error("analyze", "--idle-power: too long");
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        double w;
        if (mw_cli_number(eq ? eq + 1 : item, &w) || w < 0)
            return mw_cli_usage_error("analyze", "--idle-power: '%s' is not W or NAME=W (W >= 0)",
                                      item);
        if (o->nidle == AN_MAX_CHANNELS + 1)
            return mw_cli_usage_error("analyze", "--idle-power: too many channels");
        idle_power *ip = &o->idle[o->nidle++];
        ip->all = !eq;
        ip->w = w;
        if (eq) {
            *eq = 0;
            if (!*item || strlen(item) >= sizeof ip->name)
                return mw_cli_usage_error("analyze", "--idle-power: bad channel name '%s'", item);
            snprintf(ip->name, sizeof ip->name, "%s", item);
        }
    }
    return -1;
}

static int parse_args(int argc, char **argv, an_opts *o)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},     {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'}, {"idle-power", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},     {NULL, 0, NULL, 0},
    };
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'j':
            o->json = 1;
            break;
        case 'f':
        case 't':
            if (mw_cli_number(optarg, &v) || fabs(v) >= 1e9)
                return mw_cli_usage_error("analyze", "--%s: '%s' is not a number of seconds",
                                          c == 'f' ? "from" : "to", optarg);
            if (c == 'f') {
                o->have_from = 1;
                o->from_s = v;
            } else {
                o->have_to = 1;
                o->to_s = v;
            }
            break;
        case 'i': {
            int rc = parse_idle(o, optarg);
            if (rc >= 0) return rc;
            break;
        }
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("analyze", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("analyze", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return mw_cli_usage_error("analyze", "missing RUNDIR");
    if (argc - optind > AN_MAX_RUNS)
        return mw_cli_usage_error("analyze", "more than %d runs", AN_MAX_RUNS);
    if (o->have_from && o->have_to && o->from_s >= o->to_s)
        return mw_cli_usage_error("analyze", "--from %g is not before --to %g", o->from_s, o->to_s);
    return -1;
}

int cmd_analyze(int argc, char **argv)
{
    an_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    char **dirs, err[1024]; /* a SWEEPDIR becomes its finished runs (sweepindex.h) */
    int nruns;
    if (mw_sweepidx_expand(argc - optind, argv + optind, &dirs, &nruns, err, sizeof err)) {
        fprintf(stderr, "mw analyze: %s\n", err);
        return MW_EXIT_USAGE;
    }
    if (nruns > AN_MAX_RUNS) {
        mw_sweepidx_free_list(dirs, nruns);
        return mw_cli_usage_error("analyze", "more than %d runs", AN_MAX_RUNS);
    }
    an_run **runs = mw_xcalloc((size_t)nruns, sizeof *runs);
    rc = MW_EXIT_OK;
    for (int i = 0; i < nruns && !rc; i++) {
        runs[i] = mw_xcalloc(1, sizeof *runs[i]);
        runs[i]->dir = dirs[i];
        rc = analyze_run(runs[i], &o);
    }
    for (int k = 0; !rc && k < o.nidle; k++) { /* every NAME=W must name a channel */
        int found = o.idle[k].all;
        for (int i = 0; i < nruns && !found; i++)
            for (int c = 0; c < runs[i]->nch && !found; c++)
                found = !strcmp(runs[i]->ch[c].name, o.idle[k].name);
        if (!found)
            rc = mw_cli_usage_error("analyze", "--idle-power: no channel '%s' in the runs",
                                    o.idle[k].name);
    }
    if (!rc) {
        for (int i = 0; i < nruns; i++) /* notes, once the input is known to be usable */
            for (int c = 0; c < runs[i]->nch; c++) {
                const an_channel *ch = &runs[i]->ch[c];
                if (ch->kde.constant)
                    fprintf(stderr,
                            "mw analyze: %s: channel %s: constant power %.3f W in all %zu "
                            "windows: one level, not bimodal\n",
                            runs[i]->dir, ch->name, ch->constant_w, ch->windows);
            }
        if (o.json) {
            json_doc(stdout, runs, nruns);
        } else {
            for (int i = 0; i < nruns; i++) {
                if (i) fputc('\n', stdout);
                text_run(stdout, runs[i]);
            }
            if (nruns > 1) text_aggregate(stdout, runs, nruns);
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "mw analyze: standard output: write error: %s\n", strerror(errno));
            rc = MW_EXIT_FAIL;
        }
    }
    for (int i = 0; i < nruns; i++)
        run_free(runs[i]);
    free(runs);
    mw_sweepidx_free_list(dirs, nruns);
    return rc;
}
