/* inband_share_run — a run's in-band share (mw_inband_share_read, inband_share.h) read
 * through the run store's read API (host/include/mw_run.h), in one read snapshot; no SQL.
 *
 * Per host with in-band sources: its wall channels' windows and its sources' windows become
 * energy traces (models/include/energy.h; a source's windows flagged backwards are left
 * out: they hold no energy, and counting them as 0 W would pull its mean down); the phases
 * of that host's ranks and the recorder's own (kind mw) are grouped by (kind, name), each
 * group's intervals merged into their union and cut to the run span: the range asked,
 * within the time both the wall and the in-band sources have data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inband_share.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"

typedef struct {
    mw_energy_window *w;
    size_t n, cap;
} wins;

typedef struct {
    char *host, *kind, *name;
    int64_t start_ns, end_ns;
} phase_row;

typedef struct {
    int id; /* channel or source number */
    char *name, *host, *kind, *domain;
    int additive;
} chan_row;

typedef struct {
    chan_row *ch, *src;
    size_t nch, nsrc;
    phase_row *ph;
    size_t nph;
    int64_t from_ns, to_ns;
} run_data;

static void wins_add(wins *v, int64_t t0, int64_t t1, int64_t p_mw)
{
    if (v->n == v->cap) v->w = mw_xrealloc(v->w, (v->cap = v->cap ? 2 * v->cap : 1024) * sizeof *v->w);
    if (p_mw > INT32_MAX) p_mw = INT32_MAX;
    if (p_mw < INT32_MIN) p_mw = INT32_MIN;
    v->w[v->n++] = (mw_energy_window){t0, t1, (int32_t)p_mw};
}

static int read_rows(mw_store *s, run_data *d, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_inband_channels(s);
    mw_run_inband_channel ic;
    int rc = c ? 0 : -1;
    while (c && (rc = mw_run_inband_channel_next(c, &ic)) == 1) {
        d->src = mw_xrealloc(d->src, (d->nsrc + 1) * sizeof *d->src);
        d->src[d->nsrc++] = (chan_row){ic.source, mw_xstrdup(ic.name), mw_xstrdup(ic.host),
                                       mw_xstrdup(ic.kind), mw_xstrdup(ic.domain), ic.additive};
    }
    mw_run_close(c);
    if (rc < 0 || !d->nsrc) return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
    mw_run_channel ch;
    c = mw_run_channels(s);
    rc = c ? 0 : -1;
    while (c && (rc = mw_run_channel_next(c, &ch)) == 1) {
        d->ch = mw_xrealloc(d->ch, (d->nch + 1) * sizeof *d->ch);
        d->ch[d->nch++] = (chan_row){ch.channel, mw_xstrdup(ch.name), mw_xstrdup(ch.host), NULL,
                                     NULL, 0};
    }
    mw_run_close(c);
    if (rc < 0) return mw_store_error_to(s, err, errlen);
    static const char *const instants[] = {"mark", "counter", NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.not_kinds = instants;
    f.spans = 1;
    mw_store_phase p;
    c = mw_run_phases(s, &f);
    rc = c ? 0 : -1;
    while (c && (rc = mw_run_phase_next(c, &p)) == 1) {
        d->ph = mw_xrealloc(d->ph, (d->nph + 1) * sizeof *d->ph);
        d->ph[d->nph++] = (phase_row){mw_xstrdup(p.host), mw_xstrdup(p.kind), mw_xstrdup(p.name),
                                      p.start_ns, p.end_ns};
    }
    mw_run_close(c);
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

/* one channel's (src 0) or source's windows into a trace; *lo, *hi widened to its extent */
static int read_trace(mw_store *s, int id, int src, wins *v, mw_energy_trace *t, int64_t *lo,
                      int64_t *hi, char *err, size_t errlen)
{
    int rc;
    if (src) {
        mw_run_cursor *c = mw_run_inband_windows(s, id);
        mw_inband_window w;
        while (c && (rc = mw_run_inband_window_next(c, &w)) == 1)
            if (!(w.flags & MW_INBAND_FLAG_BACKWARDS)) wins_add(v, w.t0_ns, w.t1_ns, w.power_mw);
        mw_run_close(c);
        if (!c) rc = -1;
    } else {
        mw_run_cursor *c = mw_run_powers(s, id, MW_RUN_BY_TIME);
        mw_run_power w;
        while (c && (rc = mw_run_power_next(c, &w)) == 1)
            wins_add(v, w.t0_ns, w.t1_ns, w.power_mw);
        mw_run_close(c);
        if (!c) rc = -1;
    }
    if (rc < 0) return mw_store_error_to(s, err, errlen);
    if (mw_energy_trace_init(t, v->w, v->n, err, errlen)) return -1;
    if (v->n && v->w[0].t0_ns < *lo) *lo = v->w[0].t0_ns;
    if (v->n && v->w[v->n - 1].t1_ns > *hi) *hi = v->w[v->n - 1].t1_ns;
    return 0;
}

typedef struct {
    char *kind, *name; /* borrowed */
    mw_energy_span *s;
    size_t n;
} group;

static int by_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    int k = strcmp(x->kind, y->kind);
    return k ? k : strcmp(x->name, y->name);
}

/* the phase groups on host h (its ranks' and the recorder's), and the idle baseline */
static group *groups_of(const run_data *d, const char *h, size_t *ng, group *idle)
{
    group *g = NULL;
    *ng = 0;
    *idle = (group){"mw", "idle", NULL, 0};
    for (size_t i = 0; i < d->nph; i++) {
        const phase_row *p = &d->ph[i];
        int mw = !strcmp(p->kind, "mw");
        if (!mw && strcmp(p->host, h)) continue;
        mw_energy_span sp = {p->start_ns, p->end_ns};
        if (mw && (!strcmp(p->name, "idle-before") || !strcmp(p->name, "idle-after"))) {
            idle->s = mw_xrealloc(idle->s, (idle->n + 1) * sizeof *idle->s);
            idle->s[idle->n++] = sp;
        }
        size_t k = 0;
        while (k < *ng && (strcmp(g[k].kind, p->kind) || strcmp(g[k].name, p->name)))
            k++;
        if (k == *ng) {
            g = mw_xrealloc(g, (*ng + 1) * sizeof *g);
            g[(*ng)++] = (group){p->kind, p->name, NULL, 0};
        }
        g[k].s = mw_xrealloc(g[k].s, (g[k].n + 1) * sizeof *g[k].s);
        g[k].s[g[k].n++] = sp;
    }
    if (*ng) qsort(g, *ng, sizeof *g, by_group);
    return g;
}

typedef struct {
    mw_energy_trace *wall, *src;
    wins *wv, *sv;
    int *additive;
    size_t nwall, nsrc;
} traces;

static void traces_free(traces *t)
{
    for (size_t i = 0; i < t->nwall; i++) {
        mw_energy_trace_free(&t->wall[i]);
        free(t->wv[i].w);
    }
    for (size_t i = 0; i < t->nsrc; i++) {
        mw_energy_trace_free(&t->src[i]);
        free(t->sv[i].w);
    }
    free(t->wall);
    free(t->src);
    free(t->wv);
    free(t->sv);
    free(t->additive);
}

/* host h's wall channels and sources: traces, the node's names, the run span [*a, *b) */
static int node_traces(mw_store *s, const run_data *d, mw_inband_share_node *nd, traces *t,
                       int64_t *a, int64_t *b, char *err, size_t errlen)
{
    int64_t wlo = INT64_MAX, whi = INT64_MIN, slo = INT64_MAX, shi = INT64_MIN;
    size_t len = 0;
    for (size_t c = 0; c < d->nch; c++) {
        if (strcmp(d->ch[c].host, nd->host)) continue;
        t->wall = mw_xrealloc(t->wall, (t->nwall + 1) * sizeof *t->wall);
        t->wv = mw_xrealloc(t->wv, (t->nwall + 1) * sizeof *t->wv);
        t->wv[t->nwall] = (wins){NULL, 0, 0};
        memset(&t->wall[t->nwall], 0, sizeof t->wall[0]);
        if (read_trace(s, d->ch[c].id, 0, &t->wv[t->nwall], &t->wall[t->nwall], &wlo, &whi, err,
                       errlen)) {
            free(t->wv[t->nwall].w);
            return -1;
        }
        t->nwall++;
        if (len < sizeof nd->wall)
            len += (size_t)snprintf(nd->wall + len, sizeof nd->wall - len, "%s%s", len ? "," : "",
                                    d->ch[c].name);
    }
    for (size_t i = 0; i < d->nsrc; i++) {
        if (strcmp(d->src[i].host, nd->host)) continue;
        size_t k = t->nsrc;
        t->src = mw_xrealloc(t->src, (k + 1) * sizeof *t->src);
        t->sv = mw_xrealloc(t->sv, (k + 1) * sizeof *t->sv);
        t->additive = mw_xrealloc(t->additive, (k + 1) * sizeof *t->additive);
        nd->src = mw_xrealloc(nd->src, (k + 1) * sizeof *nd->src);
        t->sv[k] = (wins){NULL, 0, 0};
        memset(&t->src[k], 0, sizeof t->src[0]);
        if (read_trace(s, d->src[i].id, 1, &t->sv[k], &t->src[k], &slo, &shi, err, errlen)) {
            free(t->sv[k].w);
            return -1;
        }
        t->additive[k] = d->src[i].additive;
        mw_inband_share_source *o = &nd->src[k];
        snprintf(o->name, sizeof o->name, "%s", d->src[i].name);
        snprintf(o->kind, sizeof o->kind, "%s", d->src[i].kind);
        snprintf(o->domain, sizeof o->domain, "%s", d->src[i].domain);
        o->additive = d->src[i].additive;
        t->nsrc = nd->nsrc = k + 1;
    }
    *a = d->from_ns > slo ? d->from_ns : slo;
    *b = d->to_ns < shi ? d->to_ns : shi;
    if (t->nwall && wlo > *a) *a = wlo;
    if (t->nwall && whi < *b) *b = whi;
    return 0;
}

static void add_span(mw_inband_share_node *nd, const traces *t, const char *kind, const char *name,
                     mw_energy_span *s, size_t n)
{
    nd->span = mw_xrealloc(nd->span, (nd->nspan + 1) * sizeof *nd->span);
    mw_inband_share_span *sp = &nd->span[nd->nspan++];
    memset(sp, 0, sizeof *sp);
    sp->kind = kind ? mw_xstrdup(kind) : NULL;
    sp->name = mw_xstrdup(name);
    mw_inband_share_fill(sp, t->wall, t->nwall, t->src, t->additive, t->nsrc, s, n);
}

static int build_node(mw_store *s, const run_data *d, mw_inband_share_node *nd, char *err,
                      size_t errlen)
{
    traces t;
    memset(&t, 0, sizeof t);
    int64_t a, b;
    nd->idle = -1;
    if (node_traces(s, d, nd, &t, &a, &b, err, errlen)) {
        traces_free(&t);
        return -1;
    }
    mw_energy_span run = {a, b};
    add_span(nd, &t, NULL, "run", &run, b > a ? 1 : 0);
    size_t ng;
    group idle;
    group *g = groups_of(d, nd->host, &ng, &idle);
    for (size_t k = 0; k <= ng; k++) {
        group *x = k < ng ? &g[k] : &idle;
        size_t n = mw_energy_spans_union(x->s, x->n);
        n = mw_energy_spans_clip(x->s, n, a, b);
        if (n && x == &idle) nd->idle = (int)nd->nspan;
        if (n) add_span(nd, &t, x == &idle ? NULL : x->kind, x->name, x->s, n);
        free(x->s);
    }
    free(g);
    traces_free(&t);
    return 0;
}

static void data_free(run_data *d)
{
    chan_row *rows[2] = {d->ch, d->src};
    size_t n[2] = {d->nch, d->nsrc};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < n[k]; i++) {
            free(rows[k][i].name);
            free(rows[k][i].host);
            free(rows[k][i].kind);
            free(rows[k][i].domain);
        }
        free(rows[k]);
    }
    for (size_t i = 0; i < d->nph; i++) {
        free(d->ph[i].host);
        free(d->ph[i].kind);
        free(d->ph[i].name);
    }
    free(d->ph);
}

static int build(mw_store *s, run_data *d, mw_inband_share **out, char *err, size_t errlen)
{
    if (read_rows(s, d, err, errlen)) return -1;
    if (!d->nsrc) return 0;
    mw_inband_share *r = mw_xcalloc(1, sizeof *r);
    for (size_t i = 0; i < d->nsrc; i++) { /* the hosts, in the order of their sources */
        size_t k = 0;
        while (k < r->nnode && strcmp(r->node[k].host, d->src[i].host))
            k++;
        if (k < r->nnode) continue;
        r->node = mw_xrealloc(r->node, (r->nnode + 1) * sizeof *r->node);
        memset(&r->node[k], 0, sizeof r->node[k]);
        snprintf(r->node[k].host, sizeof r->node[k].host, "%s", d->src[i].host);
        r->nnode++;
        if (build_node(s, d, &r->node[k], err, errlen)) {
            mw_inband_share_free(r);
            return -1;
        }
    }
    *out = r;
    return 0;
}

int mw_inband_share_read(const char *dir, int64_t from_ns, int64_t to_ns, mw_inband_share **out,
                         char *err, size_t errlen)
{
    *out = NULL;
    mw_store *s = mw_store_open(dir, err, errlen);
    if (!s) return -1;
    mw_run_snapshot_begin(s);
    run_data d;
    memset(&d, 0, sizeof d);
    d.from_ns = from_ns;
    d.to_ns = to_ns;
    int rc = build(s, &d, out, err, errlen);
    data_free(&d);
    mw_run_snapshot_end(s);
    mw_store_close(s);
    return rc;
}

/* ---- the alignment cross-check ----------------------------------------------------------- */

static void align_node(mw_store *s, const run_data *d, mw_inband_align_node *an, double max_s,
                       char *err, size_t errlen)
{
    mw_inband_share_node nd;
    memset(&nd, 0, sizeof nd);
    snprintf(nd.host, sizeof nd.host, "%s", an->host);
    traces t;
    memset(&t, 0, sizeof t);
    int64_t a, b;
    if (node_traces(s, d, &nd, &t, &a, &b, err, errlen)) {
        snprintf(an->note, sizeof an->note, "%.190s", err);
    } else if (!t.nwall) {
        snprintf(an->note, sizeof an->note, "no wall channel of this host");
    } else {
        mw_energy_trace *add = mw_xcalloc(t.nsrc ? t.nsrc : 1, sizeof *add);
        size_t na = 0, len = 0;
        for (size_t i = 0; i < t.nsrc; i++)
            if (t.additive[i]) {
                add[na++] = t.src[i];
                if (len < sizeof an->summed)
                    len += (size_t)snprintf(an->summed + len, sizeof an->summed - len, "%s%s",
                                            len ? "," : "", nd.src[i].name);
            }
        snprintf(an->wall, sizeof an->wall, "%.*s", (int)strcspn(nd.wall, ","), nd.wall);
        an->ok = mw_inband_align(t.wv[0].w, t.wv[0].n, add, na, max_s, &an->fit, an->note,
                                 sizeof an->note) == 0;
        free(add);
    }
    free(nd.src);
    traces_free(&t);
}

int mw_inband_align_read(const char *dir, double max_offset_s, mw_inband_align_node **out,
                         size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    mw_store *s = mw_store_open(dir, err, errlen);
    if (!s) return -1;
    mw_run_snapshot_begin(s);
    run_data d;
    memset(&d, 0, sizeof d);
    d.from_ns = INT64_MIN;
    d.to_ns = INT64_MAX;
    int rc = read_rows(s, &d, err, errlen);
    for (size_t i = 0; !rc && i < d.nsrc; i++) {
        size_t k = 0;
        while (k < *n && strcmp((*out)[k].host, d.src[i].host))
            k++;
        if (k < *n) continue;
        *out = mw_xrealloc(*out, (*n + 1) * sizeof **out);
        memset(&(*out)[k], 0, sizeof **out);
        snprintf((*out)[k].host, sizeof (*out)[k].host, "%s", d.src[i].host);
        (*n)++;
        char e2[512];
        align_node(s, &d, &(*out)[k], max_offset_s, e2, sizeof e2);
    }
    data_free(&d);
    mw_run_snapshot_end(s);
    mw_store_close(s);
    return rc;
}
