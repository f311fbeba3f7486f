/* plot_run — a run in memory for `mw plot` (plot_internal.h).
 *
 * Read through the run store's cursors (mw_run.h) inside one snapshot: the channels; every
 * window (one scan in the meter's order, as mw analyze reads them), each channel's becoming an
 * exact step-function trace (models/include/energy.h); the phases that are spans (not marks nor
 * counters, end > start) in start order, their host, kind and name interned once per run;
 * the counters; the gaps. Then the idle baseline (union of the recorder's idle-before and
 * idle-after) and each channel's mean power over it. Unusable input is a message naming
 * the run and exit status 2 (the caller's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mw_alloc.h"
#include "mw_phase_class.h"
#include "mw_run.h"
#include "mw_store.h"
#include "mw_plot.h"

const char *const mw_plot_class_names[MW_PLOT_NCLS_ALL] = {"compute", "comm",  "wait",
                                                            "gpu",     "other", "inferred"};

int mw_plot_class_of(const char *kind, const char *name)
{
    switch (mw_phase_classify(kind, name)) { /* the one rule: mw_phase_class.h */
    case MW_PHASE_RECORDER:
        return MW_PLOT_CLS_MW;
    case MW_PHASE_WORK:
        return MW_PLOT_CLS_COMPUTE;
    case MW_PHASE_COMM:
        return MW_PLOT_CLS_COMM;
    case MW_PHASE_WAIT:
        return MW_PLOT_CLS_WAIT;
    case MW_PHASE_GPU:
        return MW_PLOT_CLS_GPU;
    default:
        return MW_PLOT_CLS_OTHER;
    }
}

/* ---- interned strings: open addressing on FNV-1a ---------------------------------- */

struct mw_plot_strings {
    char **slot;
    size_t cap, n;
};

static size_t fnv(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static const char *intern(mw_plot_strings *t, const char *s)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **slot = mw_xcalloc(cap, sizeof *slot);
        for (size_t i = 0; i < t->cap; i++)
            if (t->slot[i]) {
                size_t k = fnv(t->slot[i]) & (cap - 1);
                while (slot[k])
                    k = (k + 1) & (cap - 1);
                slot[k] = t->slot[i];
            }
        free(t->slot);
        t->slot = slot;
        t->cap = cap;
    }
    size_t k = fnv(s) & (t->cap - 1);
    while (t->slot[k]) {
        if (!strcmp(t->slot[k], s)) return t->slot[k];
        k = (k + 1) & (t->cap - 1);
    }
    size_t len = strlen(s) + 1;
    t->slot[k] = mw_xrealloc(NULL, len);
    memcpy(t->slot[k], s, len);
    t->n++;
    return t->slot[k];
}

static void strings_free(mw_plot_strings *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->cap; i++)
        free(t->slot[i]);
    free(t->slot);
    free(t);
}

/* ---- reading ----------------------------------------------------------------------- */

void mw_plot_run_free(mw_plot_run *r)
{
    if (!r) return;
    for (int i = 0; i < r->nch; i++) {
        mw_energy_trace_free(&r->ch[i].t);
        free(r->ch[i].w);
    }
    free(r->ph);
    free(r->ct);
    free(r->gaps);
    free(r->idle);
    strings_free(r->strs);
    free(r->dir);
    free(r);
}

static mw_plot_channel *channel_of(mw_plot_run *r, int channel)
{
    for (int i = 0; i < r->nch; i++)
        if (r->ch[i].channel == channel) return &r->ch[i];
    if (r->nch == MW_PLOT_MAX_CHANNELS) return NULL;
    mw_plot_channel *c = &r->ch[r->nch++];
    memset(c, 0, sizeof *c);
    c->channel = channel;
    c->selected = 1;
    snprintf(c->name, sizeof c->name, "%d", channel);
    return c;
}

static int fail(char *err, size_t errlen, const mw_plot_run *r, const char *what)
{
    snprintf(err, errlen, "%s: %s", r->dir, what);
    return -1;
}

/* The store's message for a failed read; -1. */
static int read_fail(char *err, size_t errlen, mw_store *s)
{
    snprintf(err, errlen, "%s", mw_store_error(s));
    return -1;
}

static int read_channels(mw_plot_run *r, mw_store *s, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return read_fail(err, errlen, s);
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        mw_plot_channel *pc = channel_of(r, ch.channel);
        if (!pc) break;
        snprintf(pc->name, sizeof pc->name, "%s", ch.name);
        if (ch.host && *ch.host) {
            pc->has_host = 1;
            snprintf(pc->host, sizeof pc->host, "%s", ch.host);
        }
    }
    mw_run_close(c);
    if (rc == 1) return fail(err, errlen, r, "more than 64 channels");
    return rc ? read_fail(err, errlen, s) : 0;
}

/* every window, in the meter's order, onto its channel */
static int read_windows(mw_plot_run *r, mw_store *s, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW);
    if (!c) return read_fail(err, errlen, s);
    mw_store_sample w;
    size_t total = 0;
    int rc;
    while ((rc = mw_run_window_next(c, &w)) == 1) {
        mw_plot_channel *pc = channel_of(r, w.channel);
        if (!pc) {
            mw_run_close(c);
            return fail(err, errlen, r, "more than 64 channels");
        }
        if (pc->n == pc->cap) {
            pc->cap = pc->cap ? 2 * pc->cap : 1024;
            pc->w = mw_xrealloc(pc->w, pc->cap * sizeof *pc->w);
        }
        pc->w[pc->n++] = (mw_energy_window){w.t0_ns, w.t1_ns, w.power_mw};
        total++;
    }
    mw_run_close(c);
    if (rc) return read_fail(err, errlen, s);
    return total ? 0 : fail(err, errlen, r, "no samples");
}

/* the phases that are spans (not marks), and the counters, in start order */
static int read_phases(mw_plot_run *r, mw_store *s, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_phases(s, NULL);
    if (!c) return read_fail(err, errlen, s);
    size_t phcap = 0, ctcap = 0;
    mw_store_phase q;
    int rc;
    while ((rc = mw_run_phase_next(c, &q)) == 1) {
        if (!strcmp(q.kind, "counter")) {
            if (r->nct == ctcap) {
                ctcap = ctcap ? 2 * ctcap : 64;
                r->ct = mw_xrealloc(r->ct, ctcap * sizeof *r->ct);
            }
            r->ct[r->nct++] = (mw_plot_counter){q.rank, intern(r->strs, q.host),
                                                intern(r->strs, q.name), q.bytes};
            continue;
        }
        if (!strcmp(q.kind, "mark") || q.end_ns <= q.start_ns) continue;
        if (r->nph == phcap) {
            phcap = phcap ? 2 * phcap : 256;
            r->ph = mw_xrealloc(r->ph, phcap * sizeof *r->ph);
        }
        mw_plot_phase *p = &r->ph[r->nph++];
        p->rank = q.rank;
        p->thread = q.thread;
        p->host = intern(r->strs, q.host);
        p->kind = intern(r->strs, q.kind);
        p->name = intern(r->strs, q.name);
        p->cls = mw_plot_class_of(q.kind, q.name);
        p->start_ns = q.start_ns;
        p->end_ns = q.end_ns;
        if (p->cls != MW_PLOT_CLS_MW) r->nprogram++;
    }
    mw_run_close(c);
    return rc ? read_fail(err, errlen, s) : 0;
}

static int read_gaps(mw_plot_run *r, mw_store *s, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return read_fail(err, errlen, s);
    size_t gcap = 0;
    mw_run_gap g;
    int rc;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        if (r->ngaps == gcap) {
            gcap = gcap ? 2 * gcap : 16;
            r->gaps = mw_xrealloc(r->gaps, gcap * sizeof *r->gaps);
        }
        r->gaps[r->ngaps++] = (mw_energy_span){g.start_ns, g.end_ns};
    }
    mw_run_close(c);
    return rc ? read_fail(err, errlen, s) : 0;
}

static int read_all(mw_plot_run *r, mw_store *s, char *err, size_t errlen)
{
    if (read_channels(r, s, err, errlen) || read_windows(r, s, err, errlen) ||
        read_phases(r, s, err, errlen) || read_gaps(r, s, err, errlen))
        return -1;
    return 0;
}

int mw_plot_run_load(const char *dir, mw_plot_run **out, char *err, size_t errlen)
{
    *out = NULL;
    mw_plot_run *r = mw_xcalloc(1, sizeof *r);
    r->dir = mw_xstrdup(dir);
    r->strs = mw_xcalloc(1, sizeof *r->strs);
    if (!mw_store_exists(dir)) {
        snprintf(err, errlen, "%s: not a run (no %s there)", dir, MW_STORE_DB_NAME);
        mw_plot_run_free(r);
        return -1;
    }
    char e[1024];
    mw_store *s = mw_store_open(dir, e, sizeof e);
    if (!s) {
        snprintf(err, errlen, "%s", e);
        mw_plot_run_free(r);
        return -1;
    }
    mw_run_snapshot_begin(s);
    int rc = 0;
    if (mw_store_meta_get(s, "status", r->status, sizeof r->status))
        snprintf(r->status, sizeof r->status, "unknown");
    if (mw_store_start_ns(s, &r->origin_ns)) rc = fail(err, errlen, r, "no samples");
    if (!rc) rc = read_all(r, s, err, errlen);
    mw_run_snapshot_end(s);
    mw_store_close(s);
    if (rc) {
        mw_plot_run_free(r);
        return rc;
    }

    /* the idle baseline */
    size_t cap = 0;
    for (size_t i = 0; i < r->nph; i++) {
        const mw_plot_phase *p = &r->ph[i];
        if (p->cls != MW_PLOT_CLS_MW ||
            (strcmp(p->name, "idle-before") && strcmp(p->name, "idle-after")))
            continue;
        if (r->nidle == cap) {
            cap = cap ? 2 * cap : 4;
            r->idle = mw_xrealloc(r->idle, cap * sizeof *r->idle);
        }
        r->idle[r->nidle++] = (mw_energy_span){p->start_ns, p->end_ns};
    }
    r->nidle = mw_energy_spans_union(r->idle, r->nidle);

    r->first_ns = INT64_MAX;
    r->last_ns = INT64_MIN;
    for (int i = 0; i < r->nch; i++) {
        mw_plot_channel *c = &r->ch[i];
        if (mw_energy_trace_init(&c->t, c->w, c->n, e, sizeof e)) {
            snprintf(err, errlen, "%s: channel %s: %s", dir, c->name, e);
            mw_plot_run_free(r);
            return -1;
        }
        double sum_pj = 0, ns = 0;
        for (size_t k = 0; k < c->n; k++) {
            if (c->w[k].t0_ns < r->first_ns) r->first_ns = c->w[k].t0_ns;
            if (c->w[k].t1_ns > r->last_ns) r->last_ns = c->w[k].t1_ns;
            sum_pj += (double)c->w[k].power_mw * (double)(c->w[k].t1_ns - c->w[k].t0_ns);
            ns += (double)(c->w[k].t1_ns - c->w[k].t0_ns);
        }
        /* a channel with nothing connected (no host, a mean power near 0): left out by
         * default, listed in the trace's notes */
        if (!c->has_host && ns > 0 && fabs(sum_pj / ns / 1e3) < MW_PLOT_UNCONNECTED_W)
            c->unconnected = 1, c->selected = 0;
        if (r->nidle) {
            mw_energy_pj pj;
            int64_t cov;
            mw_energy_spans_sum(&c->t, r->idle, r->nidle, &pj, &cov);
            if (cov > 0) {
                c->have_base = 1;
                c->base_w = (double)pj / (double)cov / 1e3;
            }
        }
    }
    *out = r;
    return 0;
}

/* the channels' names, the first MW_PLOT_MAX_CHANNELS; 0 or -1 */
static int peek_channels(mw_store *s, mw_plot_peek *out)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return -1;
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1)
        if (out->nch < MW_PLOT_MAX_CHANNELS)
            snprintf(out->names[out->nch++], MW_PLOT_NAME, "%s", ch.name);
    mw_run_close(c);
    return rc;
}

int mw_plot_run_peek(const char *dir, mw_plot_peek *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!mw_store_exists(dir)) {
        snprintf(err, errlen, "%s: not a run (no %s there)", dir, MW_STORE_DB_NAME);
        return -1;
    }
    char e[1024];
    mw_store *s = mw_store_open(dir, e, sizeof e);
    if (!s) {
        snprintf(err, errlen, "%s", e);
        return -1;
    }
    int64_t version = 0;
    int rc = peek_channels(s, out), n = 1;
    if (rc >= 0) rc = mw_run_counter_first(s, "eeg version", &version);
    out->eeg_version = version;
    if (rc >= 0) {
        static const char *const not_program[] = {"counter", "mark", NULL};
        mw_run_phase_filter f = mw_run_phase_all();
        f.ranked = 1;
        f.not_kinds = not_program;
        mw_run_cursor *c = mw_run_phases(s, &f);
        mw_store_phase p;
        rc = c ? (n = mw_run_phase_next(c, &p)) : -1;
        out->has_ranks = n == 1;
        mw_run_close(c);
    }
    if (rc >= 0) { /* in-band sources (schema 3; none in older runs) */
        mw_run_cursor *c = mw_run_inband_channels(s);
        mw_run_inband_channel ic;
        rc = c ? (n = mw_run_inband_channel_next(c, &ic)) : -1;
        out->has_inband = n == 1;
        mw_run_close(c);
    }
    if (rc < 0) snprintf(err, errlen, "%s", mw_store_error(s));
    mw_store_close(s);
    return rc < 0 ? -1 : 0;
}

int mw_plot_run_counter(const mw_plot_run *r, int rank, const char *name, int64_t *value)
{
    for (size_t i = 0; i < r->nct; i++)
        if ((rank == -2 || r->ct[i].rank == rank) && !strcmp(r->ct[i].name, name)) {
            *value = r->ct[i].value;
            return 0;
        }
    return -1;
}

double mw_plot_run_s(const mw_plot_run *r, int64_t t_ns)
{
    return (double)(t_ns - r->origin_ns) / 1e9;
}

static int on_channel(const mw_plot_run *r, int c, const mw_plot_phase *p)
{
    if (c < 0 || p->cls == MW_PLOT_CLS_MW) return 1;
    const mw_plot_channel *ch = &r->ch[c];
    return mw_energy_channel_measures(ch->has_host ? ch->host : NULL, p->host);
}

size_t mw_plot_run_group_spans(const mw_plot_run *r, int c, const char *kind, const char *name,
                               mw_energy_span **out)
{
    mw_energy_span *s = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < r->nph; i++) {
        const mw_plot_phase *p = &r->ph[i];
        if ((kind && strcmp(p->kind, kind)) || (name && strcmp(p->name, name))) continue;
        if (!on_channel(r, c, p)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            s = mw_xrealloc(s, cap * sizeof *s);
        }
        s[n++] = (mw_energy_span){p->start_ns, p->end_ns};
    }
    n = mw_energy_spans_union(s, n);
    *out = s;
    return n;
}

typedef struct {
    const char *kind, *name;
} group;

static int group_cmp(const void *a, const void *b)
{
    const group *x = a, *y = b;
    int c = strcmp(x->kind, y->kind);
    return c ? c : strcmp(x->name, y->name);
}

size_t mw_plot_run_groups(const mw_plot_run *r, const char ***kinds, const char ***names)
{
    group *g = mw_xrealloc(NULL, (r->nph ? r->nph : 1) * sizeof *g);
    for (size_t i = 0; i < r->nph; i++)
        g[i] = (group){r->ph[i].kind, r->ph[i].name};
    qsort(g, r->nph, sizeof *g, group_cmp);
    size_t n = 0;
    for (size_t i = 0; i < r->nph; i++) /* interned: equal strings are the same pointer */
        if (!n || g[n - 1].kind != g[i].kind || g[n - 1].name != g[i].name) g[n++] = g[i];
    *kinds = mw_xrealloc(NULL, (n ? n : 1) * sizeof **kinds);
    *names = mw_xrealloc(NULL, (n ? n : 1) * sizeof **names);
    for (size_t i = 0; i < n; i++) {
        (*kinds)[i] = g[i].kind;
        (*names)[i] = g[i].name;
    }
    free(g);
    return n;
}

double *mw_plot_run_powers(const mw_plot_run *r, int c)
{
    const mw_plot_channel *ch = &r->ch[c];
    double *p = mw_xrealloc(NULL, (ch->n ? ch->n : 1) * sizeof *p);
    for (size_t i = 0; i < ch->n; i++)
        p[i] = ch->t.w[i].power_mw / 1000.0;
    return p;
}

size_t mw_plot_run_work_labels(const mw_plot_run *r, int c, unsigned char **labels)
{
    *labels = NULL;
    mw_energy_span *s = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < r->nph; i++) {
        const mw_plot_phase *p = &r->ph[i];
        /* mw analyze's working phases: compute, user, omp, gpu, cuda (not user idle.../wait...) */
        if ((p->cls != MW_PLOT_CLS_COMPUTE && p->cls != MW_PLOT_CLS_GPU) || !on_channel(r, c, p))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            s = mw_xrealloc(s, cap * sizeof *s);
        }
        s[n++] = (mw_energy_span){p->start_ns, p->end_ns};
    }
    n = mw_energy_spans_union(s, n);
    if (!n) {
        free(s);
        return (size_t)-1;
    }
    const mw_plot_channel *ch = &r->ch[c];
    *labels = mw_xrealloc(NULL, ch->n ? ch->n : 1);
    size_t nw = mw_energy_label_windows(&ch->t, 0, ch->n, s, n, *labels);
    free(s);
    return nw;
}
