/* export_common — the phases, strings and channels the trace exporters share
 * (export_internal.h): phases read through mw_run.h's cursor, strings interned in an
 * open-addressing table (FNV-1a) after being made valid UTF-8, the phases sorted by thread and start and dealt to lanes
 * so that each lane's phases nest (the design paragraph of export_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "mw_alloc.h"
#include "mw_utf8.h"
#include "mw_run.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void strings_grow(mw_exp_strings *t)
{
    size_t nslot = t->nslot ? 2 * t->nslot : 64;
    uint32_t *slot = mw_xcalloc(nslot, sizeof *slot);
    for (size_t i = 0; i < t->n; i++) {
        size_t j = fnv1a(t->s[i]) & (nslot - 1);
        while (slot[j])
            j = (j + 1) & (nslot - 1);
        slot[j] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
}

static int utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = mw_utf8_len(p);
        if (!n) return 0;
        p += n;
    }
    return 1;
}

char *mw_exp_utf8(const char *s)
{
    char *clean = mw_xcalloc(3 * strlen(s) + 1, 1), *o = clean;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = mw_utf8_len(p);
        if (n) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    return clean;
}

uint32_t mw_exp_strings_id(mw_exp_strings *t, const char *s)
{
    if (!utf8_valid(s)) {
        char *clean = mw_exp_utf8(s);
        uint32_t id = mw_exp_strings_id(t, clean);
        free(clean);
        return id;
    }
    if (2 * (t->n + 1) > t->nslot) strings_grow(t);
    size_t j = fnv1a(s) & (t->nslot - 1);
    for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
        if (!strcmp(t->s[t->slot[j] - 1], s)) return t->slot[j] - 1;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->s = mw_xrealloc(t->s, t->cap * sizeof *t->s);
    }
    t->s[t->n] = mw_xstrdup(s);
    t->slot[j] = (uint32_t)t->n + 1;
    return (uint32_t)t->n++;
}

void mw_exp_strings_free(mw_exp_strings *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* The thread a phase belongs to (rank, host, thread, GPU or not), then start, the longer first, then the order read. */
static int cmp_thread_start(const void *pa, const void *pb)
{
    const mw_exp_phase *a = pa, *b = pb;
    int c;
    if ((c = (a->rank > b->rank) - (a->rank < b->rank))) return c;
    if ((c = (a->host > b->host) - (a->host < b->host))) return c;
    if ((c = (a->thread > b->thread) - (a->thread < b->thread))) return c;
    if ((c = (int)(a->line & 1) - (int)(b->line & 1))) return c; /* gpu flag, see load */
    if ((c = cmp_i64(a->start_ns, b->start_ns))) return c;
    if ((c = cmp_i64(b->end_ns, a->end_ns))) return c;
    return (a->id > b->id) - (a->id < b->id);
}

static int cmp_line_start(const void *pa, const void *pb)
{
    const mw_exp_phase *a = pa, *b = pb;
    if (a->line != b->line) return (a->line > b->line) - (a->line < b->line);
    int c = cmp_i64(a->start_ns, b->start_ns);
    if (c) return c;
    if ((c = cmp_i64(b->end_ns, a->end_ns))) return c;
    return (a->id > b->id) - (a->id < b->id);
}

/* A lane: the ends of its open phases, innermost last. */
typedef struct {
    int64_t *end;
    size_t n, cap;
} lane;

/* Whether p nests in the lane's open phases (closing those that ended by its start). */
static int lane_fits(lane *l, const mw_exp_phase *p)
{
    while (l->n && l->end[l->n - 1] <= p->start_ns)
        l->n--;
    return !l->n || l->end[l->n - 1] >= p->end_ns;
}

static void lane_push(lane *l, int64_t end_ns)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->end = mw_xrealloc(l->end, l->cap * sizeof *l->end);
    }
    l->end[l->n++] = end_ns;
}

/* Deals the phases ph[first .. last) of one thread to lanes; adds the lines to x. */
static void deal_thread(mw_exp_phases *x, size_t first, size_t last, int gpu)
{
    lane *lanes = NULL;
    size_t nlanes = 0, base = x->nline;
    for (size_t i = first; i < last; i++) {
        mw_exp_phase *p = &x->ph[i];
        size_t k = 0;
        while (k < nlanes && !lane_fits(&lanes[k], p))
            k++;
        if (k == nlanes) {
            lanes = mw_xrealloc(lanes, ++nlanes * sizeof *lanes);
            memset(&lanes[k], 0, sizeof lanes[k]);
            x->line = mw_xrealloc(x->line, (x->nline + 1) * sizeof *x->line);
            x->line[x->nline++] = (mw_exp_line){.host = p->host, .rank = p->rank,
                                                .thread = p->thread, .gpu = gpu, .lane = (int)k};
        }
        lane_push(&lanes[k], p->end_ns);
        p->line = (uint32_t)(base + k);
        x->line[base + k].n++;
    }
    for (size_t k = 0; k < nlanes; k++)
        free(lanes[k].end);
    free(lanes);
}

static int same_thread(const mw_exp_phase *a, const mw_exp_phase *b)
{
    return a->host == b->host && a->rank == b->rank && a->thread == b->thread &&
           (a->line & 1) == (b->line & 1);
}

/* Sorts the phases into threads, deals each to lanes, then sorts them by line. */
static void lay_out(mw_exp_phases *x)
{
    qsort(x->ph, x->nph, sizeof *x->ph, cmp_thread_start);
    for (size_t i = 0, j; i < x->nph; i = j) {
        for (j = i + 1; j < x->nph && same_thread(&x->ph[i], &x->ph[j]); j++)
            ;
        deal_thread(x, i, j, (int)(x->ph[i].line & 1));
    }
    qsort(x->ph, x->nph, sizeof *x->ph, cmp_line_start);
    for (size_t i = 0, k = 0; k < x->nline; k++) {
        x->line[k].first = i;
        i += x->line[k].n;
    }
}

int mw_exp_phases_load(mw_store *s, mw_exp_phases *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    mw_run_cursor *c = mw_run_phases(s, NULL);
    if (!c) return mw_store_error_to(s, err, errlen);
    mw_store_phase p;
    size_t cap = 0;
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
        if (x->nph == cap) {
            cap = cap ? 2 * cap : 1024;
            x->ph = mw_xrealloc(x->ph, cap * sizeof *x->ph);
        }
        mw_exp_phase *q = &x->ph[x->nph];
        *q = (mw_exp_phase){.start_ns = p.start_ns, .end_ns = p.end_ns, .bytes = p.bytes,
                            .rank = p.rank, .thread = p.thread, .peer = p.peer,
                            .id = (uint32_t)x->nph};
        if (q->end_ns < q->start_ns) q->end_ns = q->start_ns; /* a hostile store's */
        q->host = mw_exp_strings_id(&x->str, p.host);
        q->kind = mw_exp_strings_id(&x->str, p.kind);
        q->name = mw_exp_strings_id(&x->str, p.name);
        q->line = !strcmp(p.kind, "gpu"); /* until lay_out: the gpu flag */
        x->nph++;
    }
    mw_run_close(c);
    if (rc < 0) {
        mw_store_error_to(s, err, errlen);
        mw_exp_phases_free(x);
        return -1;
    }
    lay_out(x);
    return 0;
}

void mw_exp_phases_free(mw_exp_phases *x)
{
    mw_exp_strings_free(&x->str);
    free(x->ph);
    free(x->line);
    memset(x, 0, sizeof *x);
}

static void channel_add(mw_exp_channels *c, int channel, const char *name, const char *host)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->ch = mw_xrealloc(c->ch, c->cap * sizeof *c->ch);
    }
    c->ch[c->n++] = (mw_exp_channel){
        .channel = channel, .name = mw_exp_utf8(name), .host = host ? mw_exp_utf8(host) : NULL};
}

int mw_exp_channels_load(mw_store *s, mw_exp_channels *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    mw_run_cursor *cur = mw_run_channels(s);
    if (!cur) return mw_store_error_to(s, err, errlen);
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(cur, &ch)) == 1)
        channel_add(c, ch.channel, ch.name, ch.host);
    mw_run_close(cur);
    if (rc < 0) {
        mw_store_error_to(s, err, errlen);
        mw_exp_channels_free(c);
        return -1;
    }
    return 0;
}

size_t mw_exp_channels_index(mw_exp_channels *c, int channel)
{
    int small = channel >= 0 && channel < 256;
    if (small && c->index_of[channel]) return c->index_of[channel] - 1;
    for (size_t i = 0; i < c->n; i++)
        if (c->ch[i].channel == channel) {
            if (small) c->index_of[channel] = (uint32_t)i + 1;
            return i;
        }
    char name[16];
    snprintf(name, sizeof name, "%d", channel);
    channel_add(c, channel, name, NULL);
    if (small) c->index_of[channel] = (uint32_t)c->n;
    return c->n - 1;
}

void mw_exp_channels_free(mw_exp_channels *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->ch[i].name);
        free(c->ch[i].host);
    }
    free(c->ch);
    memset(c, 0, sizeof *c);
}
