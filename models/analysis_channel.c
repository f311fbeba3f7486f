/* analysis_channel — one channel of a run being analysed (analysis_internal.h): its plan
 * of instants, its windows streamed through it, and its figures at the end.
 *
 * The windows must come in the order models/energy.c integrates them: by end, then start,
 * starts never going back (the order a run's windows have in recording order, unless the
 * clock stepped back). Then at(t) — the energy of every window ended by t, plus the part
 * before t of the windows holding it — is summed as the windows pass: an instant takes the
 * running sum when the first window ending after it arrives, then the parts of the windows
 * that start before it. These are the integer sums of mw_energy_at_pj and
 * mw_energy_covered_at_ns, in the same order, so every figure is the one a whole trace
 * gives. A window out of that order, or one the trace would refuse, marks the channel for a
 * replay: its windows again, all at once, checked and sorted by mw_energy_trace_init.
 *
 * The windows overlapping the range are the ones the level estimators see, in the same
 * order; each is labelled working or idle as it passes (mw_energy_label_windows' rule) and
 * kept as a zigzag varint of its power's change, the label in the lowest bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "mw_alloc.h"

/* models/energy.c refuses times beyond +-2^62 ns (years 1824..2116) */
#define AN_T_LIMIT_NS ((int64_t)1 << 62)

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

/* ---- the plan -------------------------------------------------------------------------- */

static void plan_add(an_plan *p, int64_t t_ns)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->t_ns = mw_xrealloc(p->t_ns, p->cap * sizeof *p->t_ns);
    }
    p->t_ns[p->n++] = t_ns;
}

static void plan_add_spans(an_plan *p, const mw_energy_span *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        plan_add(p, s[i].start_ns);
        plan_add(p, s[i].end_ns);
    }
}

static int t_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void plan_reset(an_plan *p)
{
    memset(p->at_pj, 0, p->n * sizeof *p->at_pj);
    memset(p->cov_ns, 0, p->n * sizeof *p->cov_ns);
    p->lo = p->hi = 0;
    p->cum_pj = 0;
    p->cum_ns = 0;
}

/* Every instant the end asks of channel c (an_chan_finish asks the same). */
static void plan_build(mw_analysis_run *r, size_t c)
{
    struct mw_analysis_work *w = r->work;
    an_plan *p = &w->ch[c].plan;
    plan_add(p, r->from_ns);
    plan_add(p, r->to_ns);
    plan_add_spans(p, w->idle.s, w->idle.n);
    for (size_t g = 0; g < r->nphases; g++) {
        const mw_energy_span *s;
        size_t n;
        an_group_spans(r, g, c, &s, &n);
        plan_add_spans(p, s, n);
    }
    for (size_t k = 0; k < r->nranks; k++)
        if (an_rank_has_channel(r, k, c)) {
            plan_add(p, r->ranks[k].start_ns);
            plan_add(p, r->ranks[k].end_ns);
            plan_add_spans(p, w->rank_work[k].s, w->rank_work[k].n);
        }
    qsort(p->t_ns, p->n, sizeof *p->t_ns, t_cmp);
    size_t m = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!m || p->t_ns[i] != p->t_ns[m - 1]) p->t_ns[m++] = p->t_ns[i];
    p->n = p->cap = m;
    p->t_ns = mw_xrealloc(p->t_ns, m * sizeof *p->t_ns);
    p->at_pj = mw_xcalloc(m, sizeof *p->at_pj);
    p->cov_ns = mw_xcalloc(m, sizeof *p->cov_ns);
}

/* One window, in order: instants it ends after take the sum so far, instants inside it
 * take their part of it. */
static void plan_feed(an_plan *p, const mw_energy_window *w)
{
    while (p->hi < p->n && p->t_ns[p->hi] < w->t1_ns) {
        p->at_pj[p->hi] = p->cum_pj;
        p->cov_ns[p->hi] = p->cum_ns;
        p->hi++;
    }
    while (p->lo < p->hi && p->t_ns[p->lo] <= w->t0_ns)
        p->lo++;
    for (size_t j = p->lo; j < p->hi; j++) {
        p->at_pj[j] += (mw_energy_pj)w->power_mw * ((mw_energy_pj)p->t_ns[j] - w->t0_ns);
        p->cov_ns[j] = sat_add(p->cov_ns[j], (int64_t)((uint64_t)p->t_ns[j] - (uint64_t)w->t0_ns));
    }
    int64_t len = w->t1_ns - w->t0_ns;
    p->cum_pj += (mw_energy_pj)w->power_mw * len;
    p->cum_ns = sat_add(p->cum_ns, len);
}

/* After the last window: instants after every window take the whole sum. */
static void plan_close(an_plan *p)
{
    for (; p->hi < p->n; p->hi++) {
        p->at_pj[p->hi] = p->cum_pj;
        p->cov_ns[p->hi] = p->cum_ns;
    }
}

static size_t plan_index(const an_plan *p, int64_t t_ns)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->t_ns[mid] < t_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo; /* t_ns is in the plan: plan_build put it there */
}

/* mw_energy_span_pj and mw_energy_span_covered_ns from the plan */
static void plan_span(const an_plan *p, int64_t a, int64_t b, mw_energy_pj *pj, int64_t *cov)
{
    *pj = 0;
    *cov = 0;
    if (b <= a) return;
    size_t i = plan_index(p, a), j = plan_index(p, b);
    *pj = p->at_pj[j] - p->at_pj[i];
    *cov = p->cov_ns[j] - p->cov_ns[i];
}

/* mw_energy_spans_sum from the plan */
static void plan_spans_sum(const an_plan *p, const mw_energy_span *s, size_t n, mw_energy_pj *pj,
                           int64_t *cov)
{
    mw_energy_pj e = 0;
    int64_t c = 0;
    for (size_t i = 0; i < n; i++) {
        mw_energy_pj x;
        int64_t y;
        plan_span(p, s[i].start_ns, s[i].end_ns, &x, &y);
        e += x;
        c = sat_add(c, y);
    }
    *pj = e;
    *cov = c;
}

/* ---- powers ---------------------------------------------------------------------------- */

static void powers_push(an_powers *p, int32_t power_mw, int working)
{
    int64_t d = (int64_t)power_mw - p->prev_mw;
    p->prev_mw = power_mw;
    uint64_t z = ((uint64_t)d << 1) ^ (d < 0 ? UINT64_MAX : 0); /* zigzag */
    z = z << 1 | (working != 0);
    if (!p->tail || p->tail->n + 10 > AN_BLOCK_BYTES) { /* a varint is 10 bytes at most */
        an_block *b = mw_xrealloc(NULL, sizeof *b);
        b->next = NULL;
        b->n = 0;
        if (p->tail)
            p->tail->next = b;
        else
            p->head = b;
        p->tail = b;
    }
    an_block *b = p->tail;
    for (; z >= 0x80; z >>= 7)
        b->b[b->n++] = (unsigned char)(z | 0x80);
    b->b[b->n++] = (unsigned char)z;
}

static void powers_free(an_powers *p)
{
    while (p->head) {
        an_block *next = p->head->next;
        free(p->head);
        p->head = next;
    }
    *p = (an_powers){0};
}

/* The n powers (W) and labels back. */
static void powers_decode(const an_powers *p, size_t n, double *power_w, unsigned char *working)
{
    const an_block *b = p->head;
    size_t at = 0;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (at == b->n) {
            b = b->next;
            at = 0;
        }
        uint64_t z = 0;
        for (int shift = 0;; shift += 7) {
            unsigned char c = b->b[at++];
            z |= (uint64_t)(c & 0x7f) << shift;
            if (!(c & 0x80)) break;
        }
        working[i] = z & 1;
        z >>= 1;
        v += (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
        power_w[i] = (int32_t)v / 1000.0;
    }
}

/* ---- the windows ----------------------------------------------------------------------- */

void an_chan_setup(mw_analysis_run *r, size_t c)
{
    struct mw_analysis_work *w = r->work;
    an_chan *ch = &w->ch[c];
    mw_analysis_channel *pc = &r->channels[c];
    ch->ready = 1;
    pc->ranks = mw_xcalloc(r->nranks, sizeof *pc->ranks);
    for (size_t k = 0; k < r->nranks; k++)
        if (mw_energy_channel_measures(pc->has_host ? pc->host : NULL, r->ranks[k].host)) {
            pc->ranks[pc->nranks++] = k;
            for (size_t i = 0; i < w->rank_work[k].n; i++)
                an_spans_push(&ch->work, w->rank_work[k].s[i].start_ns,
                              w->rank_work[k].s[i].end_ns);
        }
    ch->work.n = ch->work.cap = mw_energy_spans_union(ch->work.s, ch->work.n);
    ch->work.s = mw_xrealloc(ch->work.s, ch->work.n * sizeof *ch->work.s);
    plan_build(r, c);
}

/* (t1, t0) order, as the trace sorts windows */
static int window_before(const mw_energy_window *a, const mw_energy_window *b)
{
    return a->t1_ns < b->t1_ns || (a->t1_ns == b->t1_ns && a->t0_ns < b->t0_ns);
}

static int in_range(const mw_analysis_run *r, const mw_energy_window *w)
{
    return w->t1_ns > r->from_ns && w->t0_ns < r->to_ns;
}

/* The meter's counter: the first and last windows in the range, in the order given. */
static void count_window(mw_analysis_run *r, an_chan *ch, const mw_energy_window *w)
{
    if (!in_range(r, w)) return;
    mw_energy_counter *k = &ch->counter;
    if (!ch->have_counter || window_before(w, &k->first)) k->first = *w;
    if (!ch->have_counter || window_before(&k->last, w)) k->last = *w;
    ch->have_counter = 1;
}

/* mw_energy_label_windows' rule for one window, the work spans' cursor kept */
static int label(an_chan *ch, const mw_energy_window *w)
{
    const mw_energy_span *s = ch->work.s;
    size_t n = ch->work.n;
    while (ch->wk < n && s[ch->wk].end_ns <= w->t0_ns)
        ch->wk++;
    int64_t cover = 0;
    for (size_t j = ch->wk; j < n && s[j].start_ns < w->t1_ns; j++) {
        int64_t a = s[j].start_ns > w->t0_ns ? s[j].start_ns : w->t0_ns;
        int64_t b = s[j].end_ns < w->t1_ns ? s[j].end_ns : w->t1_ns;
        cover += b - a;
    }
    return (mw_energy_pj)2 * cover > (mw_energy_pj)w->t1_ns - w->t0_ns;
}

/* A window in time order. */
static void feed(mw_analysis_run *r, size_t c, const mw_energy_window *w)
{
    an_chan *ch = &r->work->ch[c];
    mw_analysis_channel *pc = &r->channels[c];
    plan_feed(&ch->plan, w);
    if (in_range(r, w)) {
        if (!pc->windows) ch->first_t0_ns = w->t0_ns;
        ch->last_t1_ns = w->t1_ns;
        pc->windows++;
        int working = ch->work.n ? label(ch, w) : 0;
        ch->nworking += working;
        powers_push(&ch->powers, w->power_mw, working);
    }
    ch->prev = *w;
    ch->started = 1;
}

void an_chan_window(mw_analysis_run *r, size_t c, const mw_energy_window *w)
{
    an_chan *ch = &r->work->ch[c];
    if (ch->replay) return;
    if (w->t1_ns < w->t0_ns || w->t0_ns < -AN_T_LIMIT_NS || w->t1_ns > AN_T_LIMIT_NS ||
        (ch->started && (window_before(w, &ch->prev) || w->t0_ns < ch->prev.t0_ns))) {
        ch->replay = 1;
        return;
    }
    count_window(r, ch, w);
    feed(r, c, w);
}

int mw_analysis_replay_needed(const mw_analysis_run *r, size_t c)
{
    return r->work && c < r->nchannels && r->work->ch[c].replay;
}

int mw_analysis_replay(mw_analysis_run *r, size_t c, mw_energy_window *w, size_t n, char *err,
                       size_t errlen)
{
    an_chan *ch = &r->work->ch[c];
    mw_analysis_channel *pc = &r->channels[c];
    plan_reset(&ch->plan);
    powers_free(&ch->powers);
    ch->have_counter = ch->started = 0;
    ch->wk = ch->nworking = 0;
    pc->windows = 0;
    for (size_t i = 0; i < n; i++) /* in the order given, as the trace would not see it */
        count_window(r, ch, &w[i]);
    char e[512];
    mw_energy_trace t;
    if (mw_energy_trace_init(&t, w, n, e, sizeof e)) {
        snprintf(err, errlen, "%s: channel %s: %s", r->dir, pc->name, e);
        return -1;
    }
    ch->replay = 0;
    for (size_t i = 0; i < n; i++)
        feed(r, c, &t.w[i]);
    mw_energy_trace_free(&t);
    return 0;
}

int mw_analysis_counter_windows(const mw_analysis_run *r, size_t c, mw_energy_window *first,
                                mw_energy_window *last)
{
    const an_chan *ch = &r->work->ch[c];
    if (!ch->have_counter) return 0;
    *first = ch->counter.first;
    *last = ch->counter.last;
    return 1;
}

void mw_analysis_set_counter(mw_analysis_run *r, size_t c, int64_t first_energy_mj,
                             int64_t first_meter_us, int64_t last_energy_mj)
{
    mw_energy_counter *k = &r->work->ch[c].counter;
    k->first_energy_mj = first_energy_mj;
    k->first_meter_us = first_meter_us;
    k->last_energy_mj = last_energy_mj;
}

/* ---- the end --------------------------------------------------------------------------- */

static void est_fail(mw_analysis_estimate *e, const char *note)
{
    memset(e, 0, sizeof *e);
    e->state = MW_ANALYSIS_FAILED;
    snprintf(e->levels.note, sizeof e->levels.note, "%s", note);
}

/* Pow_idle/Pow_work three ways from the in-range windows' powers. */
static void levels(an_chan *ch, mw_analysis_channel *pc)
{
    size_t n = pc->windows;
    if (n == 0) {
        est_fail(&pc->kde, "no windows in the range");
        est_fail(&pc->gmm, "no windows in the range");
        est_fail(&pc->split, "no windows in the range");
        return;
    }
    double *p = mw_xcalloc(n, sizeof *p);
    unsigned char *working = mw_xcalloc(n, 1);
    powers_decode(&ch->powers, n, p, working);
    powers_free(&ch->powers);
    int constant = 1;
    for (size_t i = 0; i < n && constant; i++)
        constant = p[i] == p[0];
    /* constant input is one level (levels.h); noted by the caller */
    pc->kde.constant = constant;
    pc->constant_power_w = p[0];
    pc->kde.state = mw_levels_kde(p, n, &pc->kde.levels) ? MW_ANALYSIS_FAILED : MW_ANALYSIS_OK;
    pc->gmm.state = mw_levels_gmm(p, n, &pc->gmm.levels) ? MW_ANALYSIS_FAILED : MW_ANALYSIS_OK;
    size_t nw = ch->nworking;
    if (ch->work.n == 0) {
        pc->split.state = MW_ANALYSIS_SKIPPED;
    } else {
        if (nw == 0 || nw == n) {
            char note[160];
            snprintf(note, sizeof note, "all %zu windows labelled %s", n, nw ? "working" : "idle");
            est_fail(&pc->split, note);
        } else {
            pc->split.state = mw_levels_split(p, working, n, &pc->split.levels) ? MW_ANALYSIS_FAILED
                                                                                : MW_ANALYSIS_OK;
        }
        pc->split.working_windows = nw;
        pc->split.idle_windows = n - nw;
    }
    free(working);
    free(p);
}

static const double *idle_option(const struct mw_analysis_work *w, const char *name)
{
    const double *all = NULL;
    for (size_t i = 0; i < w->nidle_opt; i++) {
        if (!w->idle_opt[i].channel)
            all = &w->idle_opt[i].power_w;
        else if (!strcmp(w->idle_opt[i].channel, name))
            return &w->idle_opt[i].power_w;
    }
    return all;
}

/* The channel's phases and ranks. */
static void phases_and_ranks(mw_analysis_run *r, size_t c, const an_plan *p)
{
    for (size_t g = 0; g < r->nphases; g++) {
        mw_analysis_phase *ph = &r->phases[g];
        const mw_energy_span *s;
        size_t n;
        an_group_spans(r, g, c, &s, &n);
        ph->channel_duration_ns[c] = mw_energy_spans_length_ns(s, n);
        plan_spans_sum(p, s, n, &ph->channel_energy_pj[c], &ph->channel_covered_ns[c]);
    }
    for (size_t k = 0; k < r->nranks; k++) {
        mw_analysis_rank *rk = &r->ranks[k];
        for (size_t j = 0; j < rk->nchannels; j++) {
            if (rk->channels[j] != c) continue;
            mw_energy_pj pj;
            int64_t cov;
            plan_span(p, rk->start_ns, rk->end_ns, &pj, &cov);
            rk->energy_pj += pj;
            rk->covered_ns += cov;
            const an_spans *wk = &r->work->rank_work[k];
            plan_spans_sum(p, wk->s, wk->n, &pj, &cov);
            rk->work_energy_pj += pj;
            rk->work_covered_ns += cov;
        }
    }
}

int an_chan_finish(mw_analysis_run *r, size_t c)
{
    struct mw_analysis_work *w = r->work;
    an_chan *ch = &w->ch[c];
    mw_analysis_channel *pc = &r->channels[c];
    an_plan *p = &ch->plan;
    plan_close(p);
    if (pc->windows) {
        /* the windows come by end: the last in the range ends last */
        int64_t a = ch->first_t0_ns > r->from_ns ? ch->first_t0_ns : r->from_ns;
        int64_t b = ch->last_t1_ns < r->to_ns ? ch->last_t1_ns : r->to_ns;
        if (a < r->first_ns) r->first_ns = a;
        if (b > r->last_ns) r->last_ns = b;
    }
    plan_span(p, r->from_ns, r->to_ns, &pc->energy_pj, &pc->covered_ns);
    if (ch->have_counter) {
        pc->have_meter = 1;
        pc->meter_pj = mw_energy_meter_pj(&ch->counter, r->from_ns, r->to_ns);
    }
    const double *idle_w = idle_option(w, pc->name);
    if (idle_w) {
        pc->idle_source = MW_ANALYSIS_IDLE_OPTION;
        pc->idle_power_w = *idle_w;
    } else if (w->idle.n) {
        mw_energy_pj pj;
        int64_t cov;
        plan_spans_sum(p, w->idle.s, w->idle.n, &pj, &cov);
        if (cov > 0) {
            pc->idle_source = MW_ANALYSIS_IDLE_PHASES;
            pc->idle_power_w = (double)pj / (double)cov / 1e3;
        }
    }
    levels(ch, pc);
    phases_and_ranks(r, c, p);
    /* the computation of its ranks, united (its boundaries are instants of the plan) */
    pc->work_ns = mw_energy_spans_length_ns(ch->work.s, ch->work.n);
    plan_spans_sum(p, ch->work.s, ch->work.n, &pc->work_energy_pj, &pc->work_covered_ns);
    an_chan_free(ch);
    return 0;
}

void an_chan_free(an_chan *ch)
{
    free(ch->plan.t_ns);
    free(ch->plan.at_pj);
    free(ch->plan.cov_ns);
    free(ch->work.s);
    powers_free(&ch->powers);
    memset(ch, 0, sizeof *ch);
}
