/* nsga.c — NSGA-II on one subpopulation (design and reading decisions in nsga.h). */
#include "nsga.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sorting helpers (qsort_r with a context; ties broken by index) ------------------- */

typedef struct {
    const double *f1, *f2;
} objs;

/* increasing f1, then decreasing f2, then index */
static int by_f1(const void *x, const void *y, void *ctx)
{
    const objs *o = ctx;
    int i = *(const int *)x, j = *(const int *)y;
    if (o->f1[i] != o->f1[j]) return o->f1[i] < o->f1[j] ? -1 : 1;
    if (o->f2[i] != o->f2[j]) return o->f2[i] > o->f2[j] ? -1 : 1;
    return (i > j) - (i < j);
}

/* increasing f2, then index */
static int by_f2(const void *x, const void *y, void *ctx)
{
    const objs *o = ctx;
    int i = *(const int *)x, j = *(const int *)y;
    if (o->f2[i] != o->f2[j]) return o->f2[i] < o->f2[j] ? -1 : 1;
    return (i > j) - (i < j);
}

int eeg_nds(const double *f1, const double *f2, int n, int *rank)
{
    if (n <= 0) return 0;
    int *ord = malloc((size_t)n * sizeof *ord);
    /* per front: the best (largest) f2 among its members, and the smallest f1 among the
     * members with that f2 (the first one met, as f1 only grows during the sweep) */
    double *best_f2 = malloc((size_t)n * sizeof *best_f2);
    double *f1_at = malloc((size_t)n * sizeof *f1_at);
    if (!ord || !best_f2 || !f1_at) {
        free(ord);
        free(best_f2);
        free(f1_at);
        for (int i = 0; i < n; i++)
            rank[i] = 0;
        return 1;
    }
    for (int i = 0; i < n; i++)
        ord[i] = i;
    objs o = {f1, f2};
    qsort_r(ord, (size_t)n, sizeof *ord, by_f1, &o);
    int fronts = 0;
    for (int k = 0; k < n; k++) {
        int p = ord[k];
        /* every earlier point has f1 ≤ f1[p]; front q dominates p iff it holds a member
         * with f2 > f2[p], or with f2 = f2[p] and f1 < f1[p]. That is true for q < rank(p)
         * and false from rank(p) on: binary search for the first front that does not. */
        int lo = 0, hi = fronts;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            int dom = best_f2[mid] > f2[p] || (best_f2[mid] == f2[p] && f1_at[mid] < f1[p]);
            if (dom)
                lo = mid + 1;
            else
                hi = mid;
        }
        rank[p] = lo;
        if (lo == fronts) {
            best_f2[fronts] = f2[p];
            f1_at[fronts] = f1[p];
            fronts++;
        } else if (f2[p] > best_f2[lo]) {
            best_f2[lo] = f2[p];
            f1_at[lo] = f1[p];
        }
    }
    free(ord);
    free(best_f2);
    free(f1_at);
    return fronts;
}

void eeg_crowding(const double *f1, const double *f2, const int *idx, int n, double *crowd)
{
    if (n <= 0) return;
    for (int k = 0; k < n; k++)
        crowd[idx[k]] = 0.0;
    if (n <= 2) {
        for (int k = 0; k < n; k++)
            crowd[idx[k]] = INFINITY;
        return;
    }
    int *ord = malloc((size_t)n * sizeof *ord);
    if (!ord) return;
    objs o = {f1, f2};
    for (int obj = 0; obj < 2; obj++) {
        const double *f = obj == 0 ? f1 : f2;
        memcpy(ord, idx, (size_t)n * sizeof *ord);
        qsort_r(ord, (size_t)n, sizeof *ord, obj == 0 ? by_f1 : by_f2, &o);
        double range = f[ord[n - 1]] - f[ord[0]];
        crowd[ord[0]] = INFINITY;
        crowd[ord[n - 1]] = INFINITY;
        if (range <= 0.0) continue;
        for (int k = 1; k < n - 1; k++)
            if (!isinf(crowd[ord[k]])) crowd[ord[k]] += (f[ord[k + 1]] - f[ord[k - 1]]) / range;
    }
    free(ord);
}

/* fronts and crowding of n points; `order` gets the indices best first (front, then
 * decreasing crowding, then index); returns 0 or −1 (no memory) */
typedef struct {
    const int *rank;
    const double *crowd;
} rc;

static int by_quality(const void *x, const void *y, void *ctx)
{
    const rc *q = ctx;
    int i = *(const int *)x, j = *(const int *)y;
    if (q->rank[i] != q->rank[j]) return q->rank[i] < q->rank[j] ? -1 : 1;
    if (q->crowd[i] != q->crowd[j]) return q->crowd[i] > q->crowd[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static int rank_all(const double *f1, const double *f2, int n, int *rank, double *crowd, int *order)
{
    int fronts = eeg_nds(f1, f2, n, rank);
    int *idx = malloc((size_t)n * sizeof *idx);
    if (!idx) return -1;
    /* bucket by front (counting sort keeps index order within a front) */
    int *start = calloc((size_t)fronts + 1, sizeof *start);
    if (!start) {
        free(idx);
        return -1;
    }
    for (int i = 0; i < n; i++)
        start[rank[i] + 1]++;
    for (int q = 0; q < fronts; q++)
        start[q + 1] += start[q];
    int *fill = malloc((size_t)fronts * sizeof *fill);
    if (!fill) {
        free(idx);
        free(start);
        return -1;
    }
    memcpy(fill, start, (size_t)fronts * sizeof *fill);
    for (int i = 0; i < n; i++)
        idx[fill[rank[i]]++] = i;
    for (int q = 0; q < fronts; q++)
        eeg_crowding(f1, f2, idx + start[q], start[q + 1] - start[q], crowd);
    free(fill);
    free(start);
    free(idx);
    if (order) {
        for (int i = 0; i < n; i++)
            order[i] = i;
        rc ctx = {rank, crowd};
        qsort_r(order, (size_t)n, sizeof *order, by_quality, &ctx);
    }
    return 0;
}

/* ---- the subpopulation ------------------------------------------------------------------ */

int eeg_pop_alloc(eeg_pop *p, int id, int m, int features)
{
    memset(p, 0, sizeof *p);
    if (m < 1 || features < 1) return -1;
    p->id = id;
    p->m = m;
    p->features = features;
    p->words = (features + 63) / 64;
    p->mask = calloc((size_t)m * (size_t)p->words, sizeof *p->mask);
    p->f1 = calloc((size_t)m, sizeof *p->f1);
    p->f2 = calloc((size_t)m, sizeof *p->f2);
    p->crowd = calloc((size_t)m, sizeof *p->crowd);
    p->rank = calloc((size_t)m, sizeof *p->rank);
    if (!p->mask || !p->f1 || !p->f2 || !p->crowd || !p->rank) {
        eeg_pop_free(p);
        return -1;
    }
    return 0;
}

void eeg_pop_free(eeg_pop *p)
{
    free(p->mask);
    free(p->f1);
    free(p->f2);
    free(p->crowd);
    free(p->rank);
    memset(p, 0, sizeof *p);
}

void eeg_pop_copy(eeg_pop *dst, const eeg_pop *src)
{
    dst->id = src->id;
    dst->evaluated = src->evaluated;
    memcpy(dst->mask, src->mask, (size_t)src->m * (size_t)src->words * sizeof *src->mask);
    memcpy(dst->f1, src->f1, (size_t)src->m * sizeof *src->f1);
    memcpy(dst->f2, src->f2, (size_t)src->m * sizeof *src->f2);
    memcpy(dst->crowd, src->crowd, (size_t)src->m * sizeof *src->crowd);
    memcpy(dst->rank, src->rank, (size_t)src->m * sizeof *src->rank);
}

static uint64_t rand64(gsl_rng *r)
{
    /* MT19937 gives 32 bits per draw */
    uint64_t hi = gsl_rng_get(r) & 0xffffffffu, lo = gsl_rng_get(r) & 0xffffffffu;
    return hi << 32 | lo;
}

static uint64_t last_word_mask(int features)
{
    int rem = features % 64;
    return rem ? (UINT64_C(1) << rem) - 1 : ~UINT64_C(0);
}

void eeg_pop_init(eeg_pop *p, double density, gsl_rng *r)
{
    for (int i = 0; i < p->m; i++) {
        uint64_t *mk = p->mask + (size_t)i * (size_t)p->words;
        memset(mk, 0, (size_t)p->words * sizeof *mk);
        for (int f = 0; f < p->features; f++)
            if (gsl_rng_uniform(r) < density) mk[f / 64] |= UINT64_C(1) << (f % 64);
        p->f1[i] = 1.0;
        p->f2[i] = 0.0;
    }
    p->evaluated = 0;
}

void eeg_pop_rank(eeg_pop *p)
{
    rank_all(p->f1, p->f2, p->m, p->rank, p->crowd, NULL);
}

void eeg_pop_evaluate(eeg_pop *p, eeg_eval_fn eval, void *ctx)
{
    eval(ctx, p->mask, p->m, p->f1, p->f2);
    p->evaluated = 1;
    eeg_pop_rank(p);
}

static int better(const eeg_pop *p, int i, int j)
{
    if (p->rank[i] != p->rank[j]) return p->rank[i] < p->rank[j];
    if (p->crowd[i] != p->crowd[j]) return p->crowd[i] > p->crowd[j];
    return i <= j;
}

static int tournament(const eeg_pop *p, gsl_rng *r)
{
    int i = (int)gsl_rng_uniform_int(r, (unsigned long)p->m);
    int j = (int)gsl_rng_uniform_int(r, (unsigned long)p->m);
    return better(p, i, j) ? i : j;
}

void eeg_pop_generation(eeg_pop *p, const eeg_params *par, gsl_rng *r, eeg_eval_fn eval, void *ctx)
{
    const int m = p->m, w = p->words, n = 2 * m;
    const size_t mw = (size_t)w * sizeof(uint64_t);
    /* parents and offspring side by side: [0, m) parents, [m, 2m) offspring */
    uint64_t *mask = malloc((size_t)n * mw);
    double *f1 = malloc((size_t)n * sizeof *f1), *f2 = malloc((size_t)n * sizeof *f2);
    double *crowd = malloc((size_t)n * sizeof *crowd);
    int *rank = malloc((size_t)n * sizeof *rank), *order = malloc((size_t)n * sizeof *order);
    if (!mask || !f1 || !f2 || !crowd || !rank || !order)
        goto out; /* no memory: the generation is skipped, the population stays valid */
    memcpy(mask, p->mask, (size_t)m * mw);
    memcpy(f1, p->f1, (size_t)m * sizeof *f1);
    memcpy(f2, p->f2, (size_t)m * sizeof *f2);

    const uint64_t tail = last_word_mask(p->features);
    for (int k = 0; k < m; k += 2) {
        const uint64_t *a = p->mask + (size_t)tournament(p, r) * (size_t)w;
        const uint64_t *b = p->mask + (size_t)tournament(p, r) * (size_t)w;
        uint64_t *c1 = mask + (size_t)(m + k) * (size_t)w;
        uint64_t *c2 = k + 1 < m ? c1 + w : NULL;
        if (gsl_rng_uniform(r) < par->p_cross) {
            for (int i = 0; i < w; i++) {
                uint64_t u = rand64(r);
                c1[i] = (a[i] & u) | (b[i] & ~u);
                if (c2) c2[i] = (b[i] & u) | (a[i] & ~u);
            }
        } else {
            memcpy(c1, a, mw);
            if (c2) memcpy(c2, b, mw);
        }
        for (int c = 0; c < 2; c++) {
            uint64_t *ch = c == 0 ? c1 : c2;
            if (!ch) continue;
            if (gsl_rng_uniform(r) < par->p_mut) {
                int f = (int)gsl_rng_uniform_int(r, (unsigned long)p->features);
                ch[f / 64] ^= UINT64_C(1) << (f % 64);
            }
            ch[w - 1] &= tail;
        }
    }
    eval(ctx, mask + (size_t)m * (size_t)w, m, f1 + m, f2 + m);

    /* survival: the best m of the 2m by front, then crowding */
    if (rank_all(f1, f2, n, rank, crowd, order) != 0) goto out;
    for (int k = 0; k < m; k++) {
        int s = order[k];
        memcpy(p->mask + (size_t)k * (size_t)w, mask + (size_t)s * (size_t)w, mw);
        p->f1[k] = f1[s];
        p->f2[k] = f2[s];
    }
    eeg_pop_rank(p);
out:
    free(mask);
    free(f1);
    free(f2);
    free(crowd);
    free(rank);
    free(order);
}

int eeg_pop_emigrants(const eeg_pop *p, int max, int *idx)
{
    int *all = malloc((size_t)p->m * sizeof *all), n = 0;
    if (!all || max <= 0) {
        free(all);
        return 0;
    }
    for (int i = 0; i < p->m; i++)
        if (p->rank[i] == 0) all[n++] = i;
    rc ctx = {p->rank, p->crowd};
    qsort_r(all, (size_t)n, sizeof *all, by_quality, &ctx);
    if (n > max) n = max;
    memcpy(idx, all, (size_t)n * sizeof *idx);
    free(all);
    return n;
}

void eeg_pop_immigrate(eeg_pop *p, const uint64_t *masks, const double *f1, const double *f2, int n)
{
    if (n <= 0) return;
    if (n > p->m) n = p->m;
    int *order = malloc((size_t)p->m * sizeof *order);
    if (!order) return;
    for (int i = 0; i < p->m; i++)
        order[i] = i;
    rc ctx = {p->rank, p->crowd};
    qsort_r(order, (size_t)p->m, sizeof *order, by_quality, &ctx);
    for (int k = 0; k < n; k++) {
        int dst = order[p->m - 1 - k]; /* the worst first */
        memcpy(p->mask + (size_t)dst * (size_t)p->words, masks + (size_t)k * (size_t)p->words,
               (size_t)p->words * sizeof *masks);
        p->f1[dst] = f1[k];
        p->f2[dst] = f2[k];
    }
    free(order);
    eeg_pop_rank(p);
}

/* ---- random streams ------------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

void eeg_rng_seed(gsl_rng *r, uint64_t seed, int subpop, int epoch)
{
    uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ (uint64_t)(uint32_t)subpop) ^
                            (uint64_t)(uint32_t)epoch);
    /* gsl's MT19937 takes an unsigned long seed; 0 selects its default, so avoid it */
    gsl_rng_set(r, (unsigned long)(h | 1u));
}

/* ---- bytes ------------------------------------------------------------------------------------
 */

typedef struct {
    int32_t magic, id, m, features, evaluated, pad;
} pop_header;
#define POP_MAGIC 0x45454731 /* "EEG1" */

size_t eeg_pop_bytes(int m, int features)
{
    size_t words = (size_t)(features + 63) / 64;
    return sizeof(pop_header) + (size_t)m * (words * sizeof(uint64_t) + 2 * sizeof(double));
}

void eeg_pop_pack(const eeg_pop *p, void *buf)
{
    pop_header h = {POP_MAGIC, p->id, p->m, p->features, p->evaluated, 0};
    unsigned char *b = buf;
    memcpy(b, &h, sizeof h);
    b += sizeof h;
    size_t mb = (size_t)p->m * (size_t)p->words * sizeof *p->mask;
    memcpy(b, p->mask, mb);
    b += mb;
    memcpy(b, p->f1, (size_t)p->m * sizeof *p->f1);
    b += (size_t)p->m * sizeof *p->f1;
    memcpy(b, p->f2, (size_t)p->m * sizeof *p->f2);
}

int eeg_pop_unpack(eeg_pop *p, const void *buf, size_t len)
{
    pop_header h;
    if (len < sizeof h) return -1;
    memcpy(&h, buf, sizeof h);
    if (h.magic != POP_MAGIC || h.m != p->m || h.features != p->features ||
        len != eeg_pop_bytes(p->m, p->features))
        return -1;
    const unsigned char *b = (const unsigned char *)buf + sizeof h;
    p->id = h.id;
    p->evaluated = h.evaluated;
    size_t mb = (size_t)p->m * (size_t)p->words * sizeof *p->mask;
    memcpy(p->mask, b, mb);
    b += mb;
    memcpy(p->f1, b, (size_t)p->m * sizeof *p->f1);
    b += (size_t)p->m * sizeof *p->f1;
    memcpy(p->f2, b, (size_t)p->m * sizeof *p->f2);
    eeg_pop_rank(p);
    return 0;
}
