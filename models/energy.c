/* energy — see energy.h. The trace's windows are ordered by end time (then start), their
 * starts never going back, so the windows before an instant t are a prefix (found by binary
 * search on t1) and those holding t follow it (a short scan while t0 < t: one window, or
 * two where windows overlap by the clock model's jitter). All sums are exact in 128-bit
 * integers of picojoules; doubles appear only when a figure leaves in J or W. */
#include "energy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Times beyond +-2^62 ns (years 1824..2116) are refused: within it, no difference of two
 * times overflows. */
#define ENERGY_T_LIMIT_NS ((int64_t)1 << 62)

/* a + b, saturated: sums of window lengths of a damaged run (windows may overlap) */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

static int window_cmp(const void *pa, const void *pb)
{
    const mw_energy_window *a = pa, *b = pb;
    if (a->t1_ns != b->t1_ns) return a->t1_ns < b->t1_ns ? -1 : 1;
    if (a->t0_ns != b->t0_ns) return a->t0_ns < b->t0_ns ? -1 : 1;
    return 0;
}

int mw_energy_trace_init(mw_energy_trace *t, mw_energy_window *w, size_t n, char *err,
                         size_t errlen)
{
    memset(t, 0, sizeof *t);
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        if (w[i].t1_ns < w[i].t0_ns) {
            snprintf(err, errlen, "a window ends before it starts (t0_ns %lld, t1_ns %lld)",
                     (long long)w[i].t0_ns, (long long)w[i].t1_ns);
            return -1;
        }
        if (w[i].t0_ns < -ENERGY_T_LIMIT_NS || w[i].t1_ns > ENERGY_T_LIMIT_NS) {
            snprintf(err, errlen,
                     "a window lies outside the times mw handles, years 1824 to 2116 (t0_ns "
                     "%lld, t1_ns %lld)",
                     (long long)w[i].t0_ns, (long long)w[i].t1_ns);
            return -1;
        }
        if (i && window_cmp(&w[i - 1], &w[i]) > 0) sorted = 0;
    }
    if (!sorted) qsort(w, n, sizeof *w, window_cmp);
    for (size_t i = 1; i < n; i++)
        if (w[i].t0_ns < w[i - 1].t0_ns) {
            snprintf(err, errlen,
                     "window [%lld, %lld) ns lies inside window [%lld, %lld) ns: the windows "
                     "are not one time series",
                     (long long)w[i - 1].t0_ns, (long long)w[i - 1].t1_ns, (long long)w[i].t0_ns,
                     (long long)w[i].t1_ns);
            return -1;
        }
    t->cum_pj = malloc((n + 1) * sizeof *t->cum_pj);
    t->cum_ns = malloc((n + 1) * sizeof *t->cum_ns);
    if (!t->cum_pj || !t->cum_ns) {
        mw_energy_trace_free(t);
        snprintf(err, errlen, "out of memory (%zu windows)", n);
        return -1;
    }
    t->w = w;
    t->n = n;
    t->cum_pj[0] = 0;
    t->cum_ns[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t len = w[i].t1_ns - w[i].t0_ns;
        t->cum_pj[i + 1] = t->cum_pj[i] + (mw_energy_pj)w[i].power_mw * len;
        t->cum_ns[i + 1] = sat_add(t->cum_ns[i], len);
    }
    return 0;
}

void mw_energy_trace_free(mw_energy_trace *t)
{
    free(t->cum_pj);
    free(t->cum_ns);
    memset(t, 0, sizeof *t);
}

/* The number of windows that end at or before t_ns. */
static size_t ended_by(const mw_energy_trace *t, int64_t t_ns)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->w[mid].t1_ns <= t_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

mw_energy_pj mw_energy_at_pj(const mw_energy_trace *t, int64_t t_ns)
{
    size_t k = ended_by(t, t_ns);
    mw_energy_pj e = t->cum_pj[k];
    for (size_t j = k; j < t->n && t->w[j].t0_ns < t_ns; j++)
        e += (mw_energy_pj)t->w[j].power_mw * ((mw_energy_pj)t_ns - t->w[j].t0_ns);
    return e;
}

int64_t mw_energy_covered_at_ns(const mw_energy_trace *t, int64_t t_ns)
{
    size_t k = ended_by(t, t_ns);
    int64_t c = t->cum_ns[k];
    for (size_t j = k; j < t->n && t->w[j].t0_ns < t_ns; j++)
        c = sat_add(c, (int64_t)((uint64_t)t_ns - (uint64_t)t->w[j].t0_ns));
    return c;
}

mw_energy_pj mw_energy_span_pj(const mw_energy_trace *t, int64_t from_ns, int64_t to_ns)
{
    if (to_ns <= from_ns) return 0;
    return mw_energy_at_pj(t, to_ns) - mw_energy_at_pj(t, from_ns);
}

int64_t mw_energy_span_covered_ns(const mw_energy_trace *t, int64_t from_ns, int64_t to_ns)
{
    if (to_ns <= from_ns) return 0;
    return mw_energy_covered_at_ns(t, to_ns) - mw_energy_covered_at_ns(t, from_ns);
}

void mw_energy_window_range(const mw_energy_trace *t, int64_t from_ns, int64_t to_ns, size_t *i0,
                            size_t *i1)
{
    size_t a = ended_by(t, from_ns); /* first window ending after from_ns */
    size_t lo = a, hi = t->n;        /* first window from a on starting at or after to_ns */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->w[mid].t0_ns < to_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    *i0 = a;
    *i1 = to_ns > from_ns ? lo : a;
}

static int span_cmp(const void *pa, const void *pb)
{
    const mw_energy_span *a = pa, *b = pb;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    if (a->end_ns != b->end_ns) return a->end_ns < b->end_ns ? -1 : 1;
    return 0;
}

size_t mw_energy_spans_union(mw_energy_span *s, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) /* drop empty spans first */
        if (s[i].end_ns > s[i].start_ns) s[m++] = s[i];
    n = m;
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++)
        if (span_cmp(&s[i - 1], &s[i]) > 0) sorted = 0;
    if (!sorted) qsort(s, n, sizeof *s, span_cmp);
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && s[i].start_ns <= s[m - 1].end_ns) {
            if (s[i].end_ns > s[m - 1].end_ns) s[m - 1].end_ns = s[i].end_ns;
        } else {
            s[m++] = s[i];
        }
    }
    return m;
}

size_t mw_energy_spans_clip(mw_energy_span *s, size_t n, int64_t from_ns, int64_t to_ns)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a = s[i].start_ns > from_ns ? s[i].start_ns : from_ns;
        int64_t b = s[i].end_ns < to_ns ? s[i].end_ns : to_ns;
        if (b > a) s[m++] = (mw_energy_span){a, b};
    }
    return m;
}

int64_t mw_energy_spans_length_ns(const mw_energy_span *s, size_t n)
{
    __int128 len = 0; /* a damaged run's phases may span more than INT64_MAX */
    for (size_t i = 0; i < n; i++)
        len += (__int128)s[i].end_ns - s[i].start_ns;
    return len > INT64_MAX ? INT64_MAX : (int64_t)len;
}

void mw_energy_spans_sum(const mw_energy_trace *t, const mw_energy_span *s, size_t n,
                         mw_energy_pj *pj, int64_t *covered_ns)
{
    mw_energy_pj e = 0;
    int64_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (pj) e += mw_energy_span_pj(t, s[i].start_ns, s[i].end_ns);
        if (covered_ns) c = sat_add(c, mw_energy_span_covered_ns(t, s[i].start_ns, s[i].end_ns));
    }
    if (pj) *pj = e;
    if (covered_ns) *covered_ns = c;
}

size_t mw_energy_label_windows(const mw_energy_trace *t, size_t i0, size_t i1,
                               const mw_energy_span *work, size_t nwork, unsigned char *working)
{
    size_t k = 0, nworking = 0;
    for (size_t i = i0; i < i1; i++) {
        const mw_energy_window *w = &t->w[i];
        while (k < nwork && work[k].end_ns <= w->t0_ns)
            k++;
        int64_t cover = 0;
        for (size_t j = k; j < nwork && work[j].start_ns < w->t1_ns; j++) {
            int64_t a = work[j].start_ns > w->t0_ns ? work[j].start_ns : w->t0_ns;
            int64_t b = work[j].end_ns < w->t1_ns ? work[j].end_ns : w->t1_ns;
            cover += b - a;
        }
        working[i - i0] = (mw_energy_pj)2 * cover > (mw_energy_pj)w->t1_ns - w->t0_ns;
        nworking += working[i - i0];
    }
    return nworking;
}

mw_energy_pj mw_energy_meter_pj(const mw_energy_counter *c, int64_t from_ns, int64_t to_ns)
{
    /* mJ -> pJ: x 1e9; mW x us = nJ -> pJ: x 1e3 */
    mw_energy_pj e = ((mw_energy_pj)c->last_energy_mj - c->first_energy_mj) * 1000000000 +
                     (mw_energy_pj)c->first.power_mw * c->first_meter_us * 1000;
    if (from_ns > c->first.t0_ns) {
        int64_t end = from_ns < c->first.t1_ns ? from_ns : c->first.t1_ns;
        e -= (mw_energy_pj)c->first.power_mw * ((mw_energy_pj)end - c->first.t0_ns);
    }
    if (to_ns < c->last.t1_ns) {
        int64_t start = to_ns > c->last.t0_ns ? to_ns : c->last.t0_ns;
        e -= (mw_energy_pj)c->last.power_mw * ((mw_energy_pj)c->last.t1_ns - start);
    }
    return e;
}

int64_t mw_energy_mean_power_mw(mw_energy_pj pj, int64_t covered_ns)
{
    if (covered_ns <= 0) return 0;
    mw_energy_pj a = pj < 0 ? -pj : pj;
    mw_energy_pj q = a / covered_ns, r = a % covered_ns;
    if (2 * r >= covered_ns) q++;
    return (int64_t)(pj < 0 ? -q : q);
}

double mw_energy_dynamic_j(mw_energy_pj pj, double idle_power_w, int64_t covered_ns)
{
    return mw_energy_j(pj) - idle_power_w * (double)covered_ns / 1e9;
}

double mw_energy_j(mw_energy_pj pj)
{
    return (double)pj / MW_ENERGY_PJ_PER_J;
}

static int no_host(const char *h)
{
    return !h || !*h;
}

int mw_energy_channel_measures(const char *channel_host, const char *rank_host)
{
    return no_host(channel_host) || (rank_host && !strcmp(channel_host, rank_host));
}

int mw_energy_rank_has_channel(const char *const *channel_hosts, size_t n, size_t c,
                               const char *rank_host)
{
    int own = 0;
    for (size_t k = 0; k < n && !own; k++)
        own = !no_host(channel_hosts[k]) && rank_host && !strcmp(channel_hosts[k], rank_host);
    if (own) return !no_host(channel_hosts[c]) && !strcmp(channel_hosts[c], rank_host);
    return no_host(channel_hosts[c]);
}
