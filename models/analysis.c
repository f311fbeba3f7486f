/* analysis — a run's analysis, fed channels, phases, then windows (mw_analysis.h). This
 * file holds the run: its channels; its phases, turned at the first window into groups
 * (kind, name) with a union per host and one over all hosts, and into ranks (rank, host)
 * with their span and working phases; the windows, handed to their channel
 * (analysis_channel.c streams them); and the end, where every channel's figures are
 * computed in channel order and added to its phases' and ranks'.
 *
 * Phases are kept as rows whose strings are interned until the first window. The string
 * table is then sorted and the rows renumbered, so that ids compare as the strings do
 * (strcmp: SQLite's BINARY order, which the SQL of mw analyze used to sort by), and rows
 * sorted by (kind, name, host, start) give the groups, by (rank, host, start) the ranks. */
#include "mw_analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "inband_share.h"
#include "mw_alloc.h"
#include "mw_phase_class.h"

/* no room beyond what the spans hold */
static void spans_fit(an_spans *l)
{
    l->cap = l->n;
    l->s = mw_xrealloc(l->s, l->n * sizeof *l->s);
}

void an_spans_push(an_spans *l, int64_t start_ns, int64_t end_ns)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->s = mw_xrealloc(l->s, l->cap * sizeof *l->s);
    }
    l->s[l->n++] = (mw_energy_span){start_ns, end_ns};
}

/* s seconds since origin, as ns (|s| < 1e9) */
static int64_t at_s(int64_t origin_ns, double s)
{
    __int128 t = (__int128)origin_ns + llround(s * 1e9); /* origin: any int64 in a damaged run */
    return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
}

mw_analysis_run *mw_analysis_new(const char *dir, int64_t origin_ns, const mw_analysis_options *o)
{
    static const mw_analysis_options none = {0};
    if (!o) o = &none;
    mw_analysis_run *r = mw_xcalloc(1, sizeof *r);
    struct mw_analysis_work *w = mw_xcalloc(1, sizeof *w);
    r->work = w;
    r->dir = mw_xstrdup(dir);
    snprintf(r->status, sizeof r->status, "unknown");
    r->origin_ns = origin_ns;
    r->from_ns = o->have_from ? at_s(origin_ns, o->from_s) : INT64_MIN;
    r->to_ns = o->have_to ? at_s(origin_ns, o->to_s) : INT64_MAX;
    r->first_ns = INT64_MAX;
    r->last_ns = INT64_MIN;
    r->channels = mw_xcalloc(MW_ANALYSIS_MAX_CHANNELS, sizeof *r->channels);
    w->have_from = o->have_from;
    w->have_to = o->have_to;
    w->from_s = o->from_s;
    w->to_s = o->to_s;
    w->idle_opt = mw_xcalloc(o->nidle, sizeof *w->idle_opt);
    for (size_t i = 0; i < o->nidle; i++) {
        w->idle_opt[i].power_w = o->idle[i].power_w;
        w->idle_opt[i].channel = o->idle[i].channel ? mw_xstrdup(o->idle[i].channel) : NULL;
    }
    w->nidle_opt = o->nidle;
    for (int i = 0; i < 256; i++)
        w->map[i] = -1;
    return r;
}

/* ---- channels -------------------------------------------------------------------------- */

/* The channel numbered `channel`, added (named by its number) when new; NULL when full. */
static mw_analysis_channel *channel_of(mw_analysis_run *r, int channel, int *added)
{
    int *map = r->work->map;
    *added = 0;
    if (channel >= 0 && channel < 256 && map[channel] >= 0) return &r->channels[map[channel]];
    for (size_t i = 0; i < r->nchannels; i++)
        if (r->channels[i].channel == channel) return &r->channels[i];
    if (r->nchannels == MW_ANALYSIS_MAX_CHANNELS) return NULL;
    mw_analysis_channel *c = &r->channels[r->nchannels];
    memset(c, 0, sizeof *c);
    c->channel = channel;
    snprintf(c->name, sizeof c->name, "%d", channel);
    if (channel >= 0 && channel < 256) map[channel] = (int)r->nchannels;
    r->nchannels++;
    *added = 1;
    return c;
}

static int too_many(const mw_analysis_run *r, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: more than %d channels", r->dir, MW_ANALYSIS_MAX_CHANNELS);
    return -1;
}

int mw_analysis_add_channel(mw_analysis_run *r, int channel, const char *name, const char *host,
                            char *err, size_t errlen)
{
    if (r->work->windows_started) {
        snprintf(err, errlen, "%s: channel %d added after the windows", r->dir, channel);
        return -1;
    }
    int added;
    mw_analysis_channel *c = channel_of(r, channel, &added);
    if (!c) return too_many(r, err, errlen);
    snprintf(c->name, sizeof c->name, "%s", name ? name : "");
    c->has_host = host != NULL;
    snprintf(c->host, sizeof c->host, "%s", host ? host : "");
    return 0;
}

void mw_analysis_set_meter_host(mw_analysis_run *r, int channel, const char *host)
{
    if (!host || !*host) return;
    mw_analysis_channel *c = NULL;
    for (size_t i = 0; i < r->nchannels && !c; i++)
        if (r->channels[i].channel == channel) c = &r->channels[i];
    if (!c || c->meter_host[0]) return;
    snprintf(c->meter_host, sizeof c->meter_host, "%s", host);
    size_t seen = 0; /* distinct among the channels before: a run has at most 64 */
    for (size_t i = 0; i < r->nchannels; i++)
        if (&r->channels[i] != c && !strcmp(r->channels[i].meter_host, c->meter_host)) seen = 1;
    if (!seen) r->meter_hosts++;
}

/* ---- phases ---------------------------------------------------------------------------- */

static size_t str_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void rehash(struct mw_analysis_work *w, size_t cap)
{
    free(w->hash);
    w->hash = mw_xcalloc(cap, sizeof *w->hash);
    w->hcap = cap;
    for (size_t id = 0; id < w->nstr; id++) {
        size_t h = str_hash(w->str[id]) & (cap - 1);
        while (w->hash[h])
            h = (h + 1) & (cap - 1);
        w->hash[h] = (uint32_t)id + 1;
    }
}

static uint32_t intern(struct mw_analysis_work *w, const char *s)
{
    if (2 * (w->nstr + 1) > w->hcap) rehash(w, w->hcap ? 2 * w->hcap : 64);
    size_t h = str_hash(s) & (w->hcap - 1);
    while (w->hash[h]) {
        uint32_t id = w->hash[h] - 1;
        if (!strcmp(w->str[id], s)) return id;
        h = (h + 1) & (w->hcap - 1);
    }
    if (w->nstr == w->capstr) {
        w->capstr = w->capstr ? 2 * w->capstr : 64;
        w->str = mw_xrealloc(w->str, w->capstr * sizeof *w->str);
    }
    w->str[w->nstr] = mw_xstrdup(s);
    w->hash[h] = (uint32_t)w->nstr + 1;
    return (uint32_t)w->nstr++;
}

void mw_analysis_add_phase(mw_analysis_run *r, int rank, const char *host, const char *kind,
                           const char *name, int64_t start_ns, int64_t end_ns)
{
    struct mw_analysis_work *w = r->work;
    if (!w || w->windows_started) return;
    if (!kind) kind = "";
    if (!strcmp(kind, "mark") || !strcmp(kind, "counter") || end_ns <= start_ns) return;
    if (w->nrows == w->caprows) {
        w->caprows = w->caprows ? 2 * w->caprows : 256;
        w->rows = mw_xrealloc(w->rows, w->caprows * sizeof *w->rows);
    }
    w->rows[w->nrows++] = (an_row){
        rank,  intern(w, host ? host : ""), intern(w, kind), intern(w, name ? name : ""), start_ns,
        end_ns};
}

typedef struct {
    const char *s;
    uint32_t id;
} str_id;

static int str_id_cmp(const void *a, const void *b)
{
    return strcmp(((const str_id *)a)->s, ((const str_id *)b)->s);
}

/* Sort the string table and renumber the rows: ids then compare as their strings. The
 * phases' hosts become the run's hosts, sorted; host_of maps a string id to one. */
static void sort_strings(mw_analysis_run *r)
{
    struct mw_analysis_work *w = r->work;
    str_id *o = mw_xcalloc(w->nstr, sizeof *o);
    for (size_t i = 0; i < w->nstr; i++)
        o[i] = (str_id){w->str[i], (uint32_t)i};
    if (w->nstr) qsort(o, w->nstr, sizeof *o, str_id_cmp);
    uint32_t *to = mw_xcalloc(w->nstr, sizeof *to);
    for (size_t i = 0; i < w->nstr; i++) {
        w->str[i] = (char *)o[i].s;
        to[o[i].id] = (uint32_t)i;
    }
    unsigned char *is_host = mw_xcalloc(w->nstr, 1);
    for (size_t i = 0; i < w->nrows; i++) {
        an_row *x = &w->rows[i];
        x->host = to[x->host];
        x->kind = to[x->kind];
        x->name = to[x->name];
        is_host[x->host] = 1;
    }
    w->host_of = mw_xcalloc(w->nstr, sizeof *w->host_of);
    r->hosts = mw_xcalloc(w->nstr, sizeof *r->hosts);
    for (size_t i = 0; i < w->nstr; i++)
        if (is_host[i]) {
            w->host_of[i] = r->nhosts;
            r->hosts[r->nhosts++] = mw_xstrdup(w->str[i]);
        }
    free(is_host);
    free(to);
    free(o);
    free(w->hash);
    w->hash = NULL;
}

static int row_by_group(const void *pa, const void *pb)
{
    const an_row *a = pa, *b = pb;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    if (a->host != b->host) return a->host < b->host ? -1 : 1;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static int row_by_rank(const void *pa, const void *pb)
{
    const an_row *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->host != b->host) return a->host < b->host ? -1 : 1;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Close the group's current host slice: the union of its intervals from pool offset off. */
static void close_slice(an_group *g, size_t off, size_t host)
{
    size_t n = mw_energy_spans_union(g->pool.s + off, g->pool.n - off);
    g->pool.n = off + n;
    g->hs = mw_xrealloc(g->hs, (g->nhs + 1) * sizeof *g->hs);
    g->hs[g->nhs++] = (an_slice){host, off, n};
}

/* The group's union over all hosts (and the idle baseline), then everything clipped. */
static void close_group(mw_analysis_run *r, size_t gi)
{
    an_group *g = &r->work->groups[gi];
    mw_analysis_phase *p = &r->phases[gi];
    g->all.s = mw_xcalloc(g->pool.n, sizeof *g->all.s);
    memcpy(g->all.s, g->pool.s, g->pool.n * sizeof *g->all.s);
    g->all.n = mw_energy_spans_union(g->all.s, g->pool.n);
    if (g->is_mw && (!strcmp(p->name, "idle-before") || !strcmp(p->name, "idle-after")))
        for (size_t i = 0; i < g->all.n; i++)
            an_spans_push(&r->work->idle, g->all.s[i].start_ns, g->all.s[i].end_ns);
    g->all.n = mw_energy_spans_clip(g->all.s, g->all.n, r->from_ns, r->to_ns);
    p->duration_ns = mw_energy_spans_length_ns(g->all.s, g->all.n);
    size_t out = 0;
    for (size_t h = 0; h < g->nhs; h++) { /* clip each slice, compacting the pool */
        an_slice *sl = &g->hs[h];
        memmove(g->pool.s + out, g->pool.s + sl->off, sl->n * sizeof *g->pool.s);
        sl->n = mw_energy_spans_clip(g->pool.s + out, sl->n, r->from_ns, r->to_ns);
        sl->off = out;
        out += sl->n;
    }
    g->pool.n = out;
    spans_fit(&g->pool);
    spans_fit(&g->all);
}

static void build_groups(mw_analysis_run *r)
{
    struct mw_analysis_work *w = r->work;
    if (w->nrows) qsort(w->rows, w->nrows, sizeof *w->rows, row_by_group);
    size_t cap = 0, off = 0, host = 0;
    for (size_t i = 0; i < w->nrows; i++) {
        const an_row *x = &w->rows[i];
        an_group *g = r->nphases ? &w->groups[r->nphases - 1] : NULL;
        if (!g || x->kind != x[-1].kind || x->name != x[-1].name) {
            if (g) {
                close_slice(g, off, host);
                close_group(r, r->nphases - 1);
            }
            if (r->nphases == cap) {
                cap = cap ? 2 * cap : 16;
                r->phases = mw_xrealloc(r->phases, cap * sizeof *r->phases);
                w->groups = mw_xrealloc(w->groups, cap * sizeof *w->groups);
            }
            mw_analysis_phase *p = &r->phases[r->nphases];
            g = &w->groups[r->nphases++];
            memset(p, 0, sizeof *p);
            memset(g, 0, sizeof *g);
            p->kind = mw_xstrdup(w->str[x->kind]);
            p->name = mw_xstrdup(w->str[x->name]);
            g->is_mw = !strcmp(p->kind, "mw");
            host = w->host_of[x->host];
            off = 0;
        } else if (w->host_of[x->host] != host) {
            close_slice(g, off, host);
            off = g->pool.n;
            host = w->host_of[x->host];
        }
        r->phases[r->nphases - 1].intervals++;
        an_spans_push(&g->pool, x->start_ns, x->end_ns);
    }
    if (r->nphases) {
        close_slice(&w->groups[r->nphases - 1], off, host);
        close_group(r, r->nphases - 1);
    }
    w->idle.n = mw_energy_spans_union(w->idle.s, w->idle.n);
}

/* The computation of rank k from its rows x[0..n) by the one rule (mw_phase_class.h),
 * into w->rank_work[k], clipped to the range; its work_ns and, of that, inferred_ns (the
 * part no working phase of the program covers). */
static void rank_computation(mw_analysis_run *r, size_t k, const an_row *x, size_t n)
{
    struct mw_analysis_work *w = r->work;
    mw_phase_span *sp = mw_xcalloc(n ? n : 1, sizeof *sp);
    an_spans marked = {0};
    for (size_t i = 0; i < n; i++) {
        sp[i] = mw_phase_span_of(w->str[x[i].kind], w->str[x[i].name], x[i].start_ns, x[i].end_ns);
        if (sp[i].cls == MW_PHASE_WORK || sp[i].cls == MW_PHASE_GPU)
            an_spans_push(&marked, x[i].start_ns, x[i].end_ns);
    }
    mw_energy_span *c;
    size_t m = mw_phase_computation_spans(sp, n, &c, NULL);
    free(sp);
    m = mw_energy_spans_clip(c, m, r->from_ns, r->to_ns);
    an_spans *wk = &w->rank_work[k];
    wk->s = c;
    wk->n = wk->cap = m;
    mw_analysis_rank *rk = &r->ranks[k];
    rk->work_ns = mw_energy_spans_length_ns(c, m);
    /* marked: computation inside the working phases (both unions, sorted and disjoint) */
    marked.n = mw_energy_spans_union(marked.s, marked.n);
    __int128 mk = 0; /* a damaged run's times may lie INT64_MAX apart */
    for (size_t i = 0, j = 0; i < m && j < marked.n;) {
        int64_t a = c[i].start_ns > marked.s[j].start_ns ? c[i].start_ns : marked.s[j].start_ns;
        int64_t b = c[i].end_ns < marked.s[j].end_ns ? c[i].end_ns : marked.s[j].end_ns;
        if (b > a) mk += (__int128)b - a;
        if (c[i].end_ns < marked.s[j].end_ns)
            i++;
        else
            j++;
    }
    free(marked.s);
    if (mk > rk->work_ns) mk = rk->work_ns; /* both saturate at INT64_MAX */
    rk->inferred_ns = rk->work_ns - (int64_t)mk;
}

/* The ranks (rank, host) of every phase but the recorder's, by rank then host: their span
 * and their computation (rank_computation), clipped to the range. */
static void build_ranks(mw_analysis_run *r)
{
    struct mw_analysis_work *w = r->work;
    size_t m = 0, cap = 0;
    for (size_t i = 0; i < w->nrows; i++) /* the rows are not needed in order any more */
        if (strcmp(w->str[w->rows[i].kind], "mw")) w->rows[m++] = w->rows[i];
    if (m) qsort(w->rows, m, sizeof *w->rows, row_by_rank);
    size_t first = 0;
    for (size_t i = 0; i < m; i++) {
        const an_row *x = &w->rows[i];
        if (!i || x->rank != x[-1].rank || x->host != x[-1].host) {
            if (i) rank_computation(r, r->nranks - 1, w->rows + first, i - first);
            first = i;
            if (r->nranks == cap) {
                cap = cap ? 2 * cap : 16;
                r->ranks = mw_xrealloc(r->ranks, cap * sizeof *r->ranks);
                w->rank_work = mw_xrealloc(w->rank_work, cap * sizeof *w->rank_work);
            }
            memset(&w->rank_work[r->nranks], 0, sizeof *w->rank_work);
            r->ranks[r->nranks++] = (mw_analysis_rank){.rank = x->rank,
                                                       .host = r->hosts[w->host_of[x->host]],
                                                       .start_ns = x->start_ns,
                                                       .end_ns = x->end_ns};
        }
        mw_analysis_rank *k = &r->ranks[r->nranks - 1];
        if (x->end_ns > k->end_ns) k->end_ns = x->end_ns;
    }
    if (m) rank_computation(r, r->nranks - 1, w->rows + first, m - first);
    for (size_t i = 0; i < r->nranks; i++) {
        mw_analysis_rank *k = &r->ranks[i];
        if (k->start_ns < r->from_ns) k->start_ns = r->from_ns;
        if (k->end_ns > r->to_ns) k->end_ns = r->to_ns;
        if (k->end_ns < k->start_ns) k->end_ns = k->start_ns;
    }
}

/* Phases are all in: groups, ranks, and the channels known so far get their plans. */
static void phases_done(mw_analysis_run *r)
{
    struct mw_analysis_work *w = r->work;
    w->windows_started = 1;
    sort_strings(r);
    build_groups(r);
    build_ranks(r);
    free(w->rows);
    w->rows = NULL;
    w->nrows = 0;
    for (size_t c = 0; c < r->nchannels; c++)
        an_chan_setup(r, c);
}

static size_t host_index(const mw_analysis_run *r, const char *host, int *found)
{
    size_t lo = 0, hi = r->nhosts;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->hosts[mid], host);
        if (!c) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

void an_group_spans(const mw_analysis_run *r, size_t g, size_t c, const mw_energy_span **s,
                    size_t *n)
{
    const an_group *gr = &r->work->groups[g];
    const mw_analysis_channel *ch = &r->channels[c];
    *s = NULL;
    *n = 0;
    if (gr->is_mw || !ch->has_host) {
        *s = gr->all.s;
        *n = gr->all.n;
        return;
    }
    int found;
    size_t h = host_index(r, ch->host, &found);
    for (size_t k = 0; found && k < gr->nhs; k++)
        if (gr->hs[k].host == h) {
            *s = gr->pool.s + gr->hs[k].off;
            *n = gr->hs[k].n;
        }
}

int an_rank_has_channel(const mw_analysis_run *r, size_t k, size_t c)
{
    const char *hosts[MW_ANALYSIS_MAX_CHANNELS];
    for (size_t i = 0; i < r->nchannels; i++)
        hosts[i] = r->channels[i].has_host ? r->channels[i].host : NULL;
    return mw_energy_rank_has_channel(hosts, r->nchannels, c, r->ranks[k].host);
}

/* ---- windows and the end --------------------------------------------------------------- */

int mw_analysis_add_window(mw_analysis_run *r, int channel, int64_t t0_ns, int64_t t1_ns,
                           int32_t power_mw, char *err, size_t errlen)
{
    if (!r->work->windows_started) phases_done(r);
    int added;
    mw_analysis_channel *c = channel_of(r, channel, &added);
    if (!c) return too_many(r, err, errlen);
    size_t ci = (size_t)(c - r->channels);
    if (added) an_chan_setup(r, ci);
    r->samples++;
    mw_energy_window w = {t0_ns, t1_ns, power_mw};
    an_chan_window(r, ci, &w);
    return 0;
}

static void work_free(mw_analysis_run *r)
{
    struct mw_analysis_work *w = r->work;
    if (!w) return;
    for (size_t i = 0; i < w->nidle_opt; i++)
        free((char *)w->idle_opt[i].channel);
    free(w->idle_opt);
    free(w->rows);
    for (size_t i = 0; i < w->nstr; i++)
        free(w->str[i]);
    free(w->str);
    free(w->hash);
    free(w->host_of);
    for (size_t g = 0; w->groups && g < r->nphases; g++) {
        free(w->groups[g].pool.s);
        free(w->groups[g].hs);
        free(w->groups[g].all.s);
    }
    free(w->groups);
    for (size_t k = 0; w->rank_work && k < r->nranks; k++)
        free(w->rank_work[k].s);
    free(w->rank_work);
    free(w->idle.s);
    for (size_t c = 0; c < MW_ANALYSIS_MAX_CHANNELS; c++)
        an_chan_free(&w->ch[c]);
    free(w);
    r->work = NULL;
}

/* Which channels each rank's energy is attributed to, and the per-channel arrays. */
static void attribute(mw_analysis_run *r)
{
    for (size_t k = 0; k < r->nranks; k++) {
        mw_analysis_rank *rk = &r->ranks[k];
        rk->channels = mw_xcalloc(r->nchannels, sizeof *rk->channels);
        for (size_t c = 0; c < r->nchannels; c++)
            if (an_rank_has_channel(r, k, c)) rk->channels[rk->nchannels++] = c;
    }
    for (size_t g = 0; g < r->nphases; g++) {
        mw_analysis_phase *p = &r->phases[g];
        p->channel_duration_ns = mw_xcalloc(r->nchannels, sizeof *p->channel_duration_ns);
        p->channel_covered_ns = mw_xcalloc(r->nchannels, sizeof *p->channel_covered_ns);
        p->channel_energy_pj = mw_xcalloc(r->nchannels, sizeof *p->channel_energy_pj);
    }
}

int mw_analysis_finish(mw_analysis_run *r, char *err, size_t errlen)
{
    struct mw_analysis_work *w = r->work;
    if (!w) {
        snprintf(err, errlen, "%s: analysed already", r->dir);
        return -1;
    }
    if (!w->windows_started) phases_done(r);
    if (r->samples == 0) {
        snprintf(err, errlen, "%s: no samples", r->dir);
        return -1;
    }
    for (size_t c = 0; c < r->nchannels; c++)
        if (w->ch[c].replay) {
            snprintf(err, errlen, "%s: channel %s: its windows were not given again", r->dir,
                     r->channels[c].name);
            return -1;
        }
    attribute(r);
    for (size_t c = 0; c < r->nchannels; c++)
        an_chan_finish(r, c);
    if (r->first_ns > r->last_ns) {
        char a[64] = "the start", b[64] = "the end";
        if (w->have_from) snprintf(a, sizeof a, "%g s", w->from_s);
        if (w->have_to) snprintf(b, sizeof b, "%g s", w->to_s);
        snprintf(err, errlen, "%s: no samples between %s and %s", r->dir, a, b);
        return -1;
    }
    work_free(r);
    return 0;
}

void mw_analysis_free(mw_analysis_run *r)
{
    if (!r) return;
    work_free(r);
    mw_inband_share_free(r->inband);
    for (size_t c = 0; c < r->nchannels; c++)
        free(r->channels[c].ranks);
    free(r->channels);
    for (size_t g = 0; g < r->nphases; g++) {
        mw_analysis_phase *p = &r->phases[g];
        free(p->kind);
        free(p->name);
        free(p->channel_duration_ns);
        free(p->channel_covered_ns);
        free(p->channel_energy_pj);
    }
    free(r->phases);
    for (size_t k = 0; k < r->nranks; k++)
        free(r->ranks[k].channels);
    free(r->ranks);
    for (size_t h = 0; h < r->nhosts; h++)
        free(r->hosts[h]);
    free(r->hosts);
    free(r->dir);
    free(r);
}
